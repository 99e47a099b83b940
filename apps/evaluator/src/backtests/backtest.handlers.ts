import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, NatsContext, Payload } from '@nestjs/microservices';
import {
  BacktestOperation,
  BacktestRequest,
  GetBacktestOperationRequest,
  PREVIEW_SUBJECTS,
} from '@rollout/contracts';
import { StateFence } from '../state/state-fence';
import { Backtests } from './backtests.application';

/** preview.v1 backtests (queue group `evaluator`): start one, and read its operation. */
@Controller()
export class BacktestHandlers {
  constructor(
    private readonly backtests: Backtests,
    private readonly fence: StateFence,
  ) {}

  /** Started once the snapshot holds the changes answered before it: an experiment just created is found. */
  @MessagePattern(PREVIEW_SUBJECTS.backtest)
  async backtest(
    @Payload() request: BacktestRequest,
    @Ctx() context: NatsContext,
  ): Promise<BacktestOperation> {
    await this.fence.passed(context);
    return this.backtests.start(request);
  }

  @MessagePattern(PREVIEW_SUBJECTS.getOperation)
  getOperation(@Payload() request: GetBacktestOperationRequest): Promise<BacktestOperation> {
    return this.backtests.get(request?.name);
  }
}
