import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  BACKEND_SERVICES,
  ContractPackage,
  ListServicesResponse,
  ServiceName,
  ServiceStatus,
} from '@rollout/contracts';

export class ContractPackageDto implements ContractPackage {
  @ApiProperty({ example: 'system.v1' }) name!: string;
  @ApiProperty({ example: '1.0.0' }) version!: string;
  @ApiPropertyOptional({
    type: [String],
    example: ['dev.policy-rollout.system.start-time'],
    description: 'Optional behaviours (reverse-DNS) a client may declare in Client-Features',
  })
  features?: string[];
}

export class ServiceStatusDto implements ServiceStatus {
  @ApiProperty({ enum: ['gateway', ...BACKEND_SERVICES] }) name!: ServiceName;
  @ApiProperty({ enum: ['SERVING', 'UNAVAILABLE', 'DEADLINE_EXCEEDED', 'INTERNAL'] })
  state!: ServiceStatus['state'];
  @ApiPropertyOptional({ example: '0.1.0' }) version?: string;
  @ApiPropertyOptional({ type: [ContractPackageDto] }) contracts?: ContractPackageDto[];
  @ApiPropertyOptional({
    format: 'date-time',
    description:
      'When the service started; only for clients that declared dev.policy-rollout.system.start-time in Client-Features',
  })
  startTime?: string;
}

export class ListServicesResponseDto implements ListServicesResponse {
  @ApiProperty({ type: [ServiceStatusDto] }) services!: ServiceStatusDto[];
}
