import { ApiProperty } from '@nestjs/swagger';

/** google.rpc.Status as every error leaves the gateway (AIP-193), for the OpenAPI document. */
export class StatusDto {
  @ApiProperty({ example: 503, description: 'HTTP status code' }) code!: number;
  @ApiProperty({ example: 'UNAVAILABLE', description: 'Canonical error code' }) status!: string;
  @ApiProperty({ example: 'No service is serving system.v1.evaluator.info.' }) message!: string;
  @ApiProperty({ type: 'array', items: { type: 'object' } }) details!: object[];
}

export class ErrorResponseDto {
  @ApiProperty({ type: StatusDto }) error!: StatusDto;
}
