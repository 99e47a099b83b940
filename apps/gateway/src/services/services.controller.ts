import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { BACKEND_SERVICES, ListServicesResponse, ServiceInfo } from '@rollout/contracts';
import { RequestId } from '../http/request-id.decorator';
import { ErrorResponseDto } from '../http/error-response.dto';
import { ListServicesResponseDto, ServiceStatusDto } from './services.dto';
import { ServicesClient } from './services.client';

@ApiTags('services')
@Controller('v1/services')
export class ServicesController {
  constructor(private readonly services: ServicesClient) {}

  @Get()
  @ApiOperation({
    summary:
      "Every service's name, version and contract packages (semver and features), gathered over NATS",
    description:
      "Send `Client-Features: dev.policy-rollout.system.start-time` to also get each service's `startTime`.",
  })
  @ApiOkResponse({ type: ListServicesResponseDto })
  list(@RequestId() requestId?: string): Promise<ListServicesResponse> {
    return this.services.list(requestId);
  }

  @Get(':service')
  @ApiOperation({ summary: 'One service, asked over NATS' })
  @ApiParam({ name: 'service', enum: BACKEND_SERVICES })
  @ApiOkResponse({ type: ServiceStatusDto })
  @ApiResponse({ status: 404, description: 'No such service', type: ErrorResponseDto })
  @ApiResponse({ status: 503, description: 'The service is not running', type: ErrorResponseDto })
  @ApiResponse({
    status: 504,
    description: 'The service did not answer in time',
    type: ErrorResponseDto,
  })
  get(@Param('service') service: string, @RequestId() requestId?: string): Promise<ServiceInfo> {
    return this.services.get(service, requestId);
  }
}
