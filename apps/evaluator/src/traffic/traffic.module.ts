import { Module } from '@nestjs/common';
import { CountingModule } from '../counting/counting.module';
import { PreviewLogsModule } from '../preview-logs/preview-logs.module';
import { RetentionModule } from '../retention/retention.module';
import { TrafficLag } from './traffic-lag';
import { TrafficConsumer } from './traffic.consumer';

@Module({
  imports: [CountingModule, PreviewLogsModule, RetentionModule],
  providers: [TrafficConsumer, TrafficLag],
  exports: [TrafficLag],
})
export class TrafficModule {}
