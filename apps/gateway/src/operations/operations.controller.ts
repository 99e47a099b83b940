import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { EXPERIMENT_SUBJECTS, Operation } from '@rollout/contracts';
import { BackendClient } from '../http/backend-client';
import { RequestId } from '../http/request-id.decorator';
import { OperationDto } from '../experiments/experiments.dto';

/** Long-running operations (AIP-151): what an experiment mutation answered, asked again. */
@ApiTags('operations')
@ApiBearerAuth()
@Controller('v1/operations')
export class OperationsController {
  constructor(private readonly backend: BackendClient) {}

  @Get(':operation')
  @ApiOperation({ summary: 'An operation: done, metadata, and its response or error' })
  @ApiOkResponse({ type: OperationDto })
  @ApiResponse({ status: 404, description: 'NOT_FOUND' })
  get(@Param('operation') operation: string, @RequestId() traceId?: string): Promise<Operation> {
    return this.backend.call<Operation>(EXPERIMENT_SUBJECTS.getOperation, { name: `operations/${operation}` }, traceId);
  }
}
