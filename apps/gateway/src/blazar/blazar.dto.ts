import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type {
  BlazarCheckCreateRequest,
  BlazarCheckUpdateRequest,
  BlazarContext,
  BlazarLeasePayload,
  BlazarReservationPayload,
} from '@rollout/contracts';

/** For the OpenAPI document only: payloads are taken as Blazar sends them; the enforcement-service names bad fields. */
export class BlazarContextDto implements BlazarContext {
  [attribute: string]: unknown;
  @ApiProperty({ example: 'a0b86a98-b0d3-43cb-948e-00689182efd4' }) project_id!: string;
  @ApiPropertyOptional({ example: 'c631173e-dec0-4bb7-a0c3-f7711153c06c' }) user_id?: string;
  @ApiPropertyOptional({ example: 'https://api.example.com:5000/v3' }) auth_url?: string;
  @ApiPropertyOptional({ example: 'RegionOne' }) region_name?: string;
}

export class BlazarReservationDto implements BlazarReservationPayload {
  [attribute: string]: unknown;
  @ApiProperty({ example: 'physical:host' }) resource_type!: string;
  @ApiPropertyOptional({ example: 1 }) min?: number;
  @ApiPropertyOptional({ example: 2 }) max?: number;
  @ApiPropertyOptional() amount?: number;
  @ApiPropertyOptional({ example: '["==", "$availability_zone", "az1"]' })
  resource_properties?: string;
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object' },
    description:
      'Allocations Blazar chose; plugin attributes (network_id, hypervisor_properties…) are accepted too',
  })
  allocations?: object[];
}

export class BlazarLeaseDto implements BlazarLeasePayload {
  [attribute: string]: unknown;
  @ApiPropertyOptional({
    example: 'my-lease',
    description: 'Unique in the project: how the ledger tracks the lease (or `id`)',
  })
  name?: string;
  @ApiPropertyOptional({ description: "Blazar's lease id (update, end)" }) id?: string;
  @ApiProperty({ example: '2020-05-13 00:00', description: 'Naive (UTC) or with an offset' })
  start_date!: string;
  @ApiPropertyOptional({
    example: '2020-05-14 23:59',
    description: 'The end (or end_time): one of them is required',
  })
  end_date?: string;
  @ApiPropertyOptional({
    example: '2020-05-14 23:59',
    description: "The end as the Blazar spec's examples spell it: an alias of end_date",
  })
  end_time?: string;
  @ApiPropertyOptional({ type: [BlazarReservationDto] }) reservations?: BlazarReservationDto[];
}

export class BlazarCheckRequestDto implements BlazarCheckCreateRequest {
  @ApiProperty({ type: BlazarContextDto }) context!: BlazarContextDto;
  @ApiProperty({ type: BlazarLeaseDto }) lease!: BlazarLeaseDto;
}

export class BlazarCheckUpdateRequestDto
  extends BlazarCheckRequestDto
  implements BlazarCheckUpdateRequest
{
  @ApiProperty({ type: BlazarLeaseDto }) current_lease!: BlazarLeaseDto;
}

export class BlazarDenialDto {
  @ApiProperty({
    example:
      'Lease duration of 172800 seconds must be less than or equal to the maximum lease duration of 86400 seconds.',
  })
  message!: string;
}
