import { Module } from '@nestjs/common';
import { AutoStop } from './auto-stop.job';
import { RunCountsRepository } from './run-counts.repository';

@Module({
  providers: [AutoStop, RunCountsRepository],
})
export class AutoStopModule {}
