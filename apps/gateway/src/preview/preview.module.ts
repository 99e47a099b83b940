import { Module } from '@nestjs/common';
import { BackendModule } from '../http/backend.module';
import { BacktestController } from './backtest.controller';
import { PreviewClient } from './preview.client';
import { PreviewController } from './preview.controller';

@Module({
  imports: [BackendModule],
  controllers: [PreviewController, BacktestController],
  providers: [PreviewClient],
})
export class PreviewModule {}
