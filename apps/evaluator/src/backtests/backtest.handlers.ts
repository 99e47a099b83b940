import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  BacktestOperation,
  BacktestRequest,
  GetBacktestOperationRequest,
  PREVIEW_SUBJECTS,
} from '@rollout/contracts';
import { Backtests } from './backtests.application';

/** preview.v1 backtests (queue group `evaluator`): start one, and read its operation. */
@Controller()
export class BacktestHandlers {
  constructor(private readonly backtests: Backtests) {}

  @MessagePattern(PREVIEW_SUBJECTS.backtest)
  backtest(@Payload() request: BacktestRequest): Promise<BacktestOperation> {
    return this.backtests.start(request);
  }

  @MessagePattern(PREVIEW_SUBJECTS.getOperation)
  getOperation(@Payload() request: GetBacktestOperationRequest): Promise<BacktestOperation> {
    return this.backtests.get(request?.name);
  }
}
