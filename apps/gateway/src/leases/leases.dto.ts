import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { LEASE_STATUSES, RESOURCE_ID } from '@rollout/contracts';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import type {
  CreateLeaseRequest,
  Lease,
  LeaseInput,
  LeaseOrigin,
  LeaseReservation,
  LeaseStatus,
  ListLeasesRequest,
  ListLeasesResponse,
} from '@rollout/contracts';

/** The gateway refuses unknown fields; the enforcement-service checks dates and Blazar's sizing rules. */
const TIMESTAMP_DOC = 'RFC 3339, e.g. 2026-11-22T10:00:00Z (no offset: UTC)';

export class ReservationDto implements LeaseReservation {
  @ApiProperty({
    example: 'physical:host',
    description: 'physical:host, virtual:instance, virtual:floatingip, flavor:instance, network, …',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(129)
  resourceType!: string;
  @ApiPropertyOptional({ description: 'physical:host: fewest hosts', minimum: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  min?: number;
  @ApiPropertyOptional({
    description: 'physical:host: most hosts (what MaxReservationSize measures)',
    minimum: 0,
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  max?: number;
  @ApiPropertyOptional({
    description:
      'virtual:instance, virtual:floatingip: how many (what MaxReservationSize measures)',
    minimum: 0,
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  amount?: number;
  @ApiPropertyOptional({ example: '["==", "$availability_zone", "az1"]' })
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  resourceProperties?: string;
  @ApiPropertyOptional({ example: '[]' })
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  hypervisorProperties?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(4096) beforeEnd?: string;
  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(0) @Max(1_000_000) vcpus?: number;
  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(0) @Max(1_000_000) memoryMb?: number;
  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(0) @Max(1_000_000) diskGb?: number;
  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsBoolean()
  affinity?: boolean | null;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(4096) flavorId?: string;
  @ApiPropertyOptional({ example: 'external-network-id' })
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  networkId?: string;
  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  requiredFloatingips?: string[];
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(4096) networkName?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(4096) networkDescription?: string;
}

/** What both create and update may carry. */
class LeaseFieldsDto implements Partial<Omit<LeaseInput, 'endDate'>> {
  @ApiPropertyOptional({
    example: 'gpu-week',
    maxLength: 255,
    description: "The lease's name (defaults to its id)",
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  name?: string;
  @ApiPropertyOptional({
    example: '2026-11-23T00:00:00Z',
    description: `${TIMESTAMP_DOC}; on create, omitted or "now" means now`,
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  startDate?: string;
  @ApiPropertyOptional({ type: [ReservationDto] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => ReservationDto)
  reservations?: ReservationDto[];
}

export class CreateLeaseDto extends LeaseFieldsDto implements LeaseInput {
  @ApiProperty({ example: '2026-11-30T00:00:00Z', description: TIMESTAMP_DOC })
  @IsString()
  @MaxLength(64)
  endDate!: string;
}

/** A lease update: the fields present replace the lease's. */
export class UpdateLeaseDto extends LeaseFieldsDto implements Partial<LeaseInput> {
  @ApiPropertyOptional({ example: '2026-11-30T00:00:00Z', description: TIMESTAMP_DOC })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  endDate?: string;
}

export class CreateLeaseQueryDto implements Pick<CreateLeaseRequest, 'leaseId'> {
  @ApiPropertyOptional({
    description: `AIP-122 id: ${RESOURCE_ID.source}; the service chooses one when absent`,
    example: 'gpu-week',
  })
  @IsOptional()
  @IsString()
  @MaxLength(63)
  leaseId?: string;
}

export class PageQueryDto implements Pick<ListLeasesRequest, 'pageSize' | 'pageToken'> {
  @ApiPropertyOptional({ minimum: 0, maximum: 1000, description: 'Default 50, at most 500' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(1000)
  pageSize?: number;
  @ApiPropertyOptional({ description: 'The nextPageToken of the previous page of the same list' })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  pageToken?: string;
}

const statusList = ({ value }: { value: unknown }) =>
  (Array.isArray(value) ? value : [value])
    .flatMap((v) => String(v).split(','))
    .map((s) => s.trim())
    .filter(Boolean);

export class ListLeasesQueryDto
  extends PageQueryDto
  implements Pick<ListLeasesRequest, 'pageSize' | 'pageToken'>
{
  @ApiPropertyOptional({
    enum: LEASE_STATUSES,
    isArray: true,
    description: 'Only leases in these statuses (repeat it or separate with commas)',
    example: ['ACTIVE', 'PENDING'],
  })
  @IsOptional()
  @Transform(statusList)
  @IsArray()
  @ArrayMaxSize(4)
  @IsIn(LEASE_STATUSES, { each: true })
  status?: string[];
  @ApiPropertyOptional({
    example: 'status = ACTIVE OR status = PENDING',
    description: 'AIP-160 subset: status = X, joined by OR (or use `status`)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  filter?: string;
}

export class LeaseDto implements Lease {
  @ApiProperty({ example: 'gpu-week' }) id!: string;
  @ApiProperty({ example: 'acme' }) project!: string;
  @ApiProperty({ example: 'gpu-week' }) name!: string;
  @ApiProperty({ format: 'date-time' }) startDate!: string;
  @ApiProperty({ format: 'date-time' }) endDate!: string;
  @ApiProperty({ type: [ReservationDto] }) reservations!: ReservationDto[];
  @ApiProperty({
    enum: LEASE_STATUSES,
    description:
      'PENDING (admitted, not started), ACTIVE, TERMINATED (ended; on_end sent), ERROR (refused)',
  })
  status!: LeaseStatus;
  @ApiPropertyOptional({ description: 'ERROR: the denial message; TERMINATED: how it ended' })
  statusReason?: string;
  @ApiProperty({ enum: ['API', 'BLAZAR'] }) origin!: LeaseOrigin;
  @ApiProperty({ description: 'Who created it' }) creator!: string;
  @ApiProperty({ format: 'date-time' }) createTime!: string;
  @ApiProperty({ format: 'date-time' }) updateTime!: string;
  @ApiPropertyOptional({ format: 'date-time' }) endTime?: string;
}

export class ListLeasesResponseDto implements ListLeasesResponse {
  @ApiProperty({ type: [LeaseDto] }) leases!: LeaseDto[];
  @ApiPropertyOptional() nextPageToken?: string;
}
