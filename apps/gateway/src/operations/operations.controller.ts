import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  EXPERIMENT_SUBJECTS,
  Operation,
  PREVIEW_SUBJECTS,
  StatusError,
  projectOfName,
} from '@rollout/contracts';
import { CurrentPrincipal } from '../auth/auth.decorators';
import { Principal, canSeeProject } from '../auth/principal';
import { BackendClient } from '../http/backend-client';
import { RequestId } from '../http/request-id.decorator';
import { OperationDto } from '../experiments/experiment-operations.dto';

/** Backtests' operations are the evaluator's; every other operation is the experiment-service's. */
const BACKTEST_OPERATION = /^backtest-/;

@ApiTags('operations')
@Controller('v1/operations')
export class OperationsController {
  constructor(private readonly backend: BackendClient) {}

  @Get(':operation')
  @ApiOperation({
    summary:
      'An operation: done, metadata, and its response or error (backtest-… operations: a backtest and its result)',
  })
  @ApiOkResponse({
    type: OperationDto,
    description:
      'For a backtest-… operation, the shape :backtest answers (BacktestOperationDto): its response is the BacktestResult',
  })
  @ApiResponse({ status: 404, description: 'NOT_FOUND' })
  async get(
    @Param('operation') operation: string,
    @CurrentPrincipal() principal: Principal,
    @RequestId() traceId?: string,
  ): Promise<Operation> {
    const subject = BACKTEST_OPERATION.test(operation)
      ? PREVIEW_SUBJECTS.getOperation
      : EXPERIMENT_SUBJECTS.getOperation;
    const found = await this.backend.call<Operation>(
      subject,
      { name: `operations/${operation}` },
      traceId,
    );
    // The path names no project, so tenancy is checked on the operation's target: another
    // team's operation is as absent as one that never existed.
    const project = projectOfName(found.metadata?.target);
    if (!project || !canSeeProject(principal, project))
      throw StatusError.withReason(
        'NOT_FOUND',
        `Operation "operations/${operation}" not found.`,
        'OPERATION_NOT_FOUND',
      );
    return found;
  }
}
