import { Module } from '@nestjs/common';
import { BacktestHandlers } from './backtest.handlers';
import { Backtests } from './backtests.application';
import { BacktestsRepository } from './backtests.repository';

@Module({
  controllers: [BacktestHandlers],
  providers: [Backtests, BacktestsRepository],
})
export class BacktestsModule {}
