import { Module } from '@nestjs/common';
import { TrafficModule } from '../traffic/traffic.module';
import { FlowQueries } from './flow-queries.application';
import { FlowsRepository } from './flows.repository';
import { PreviewHandlers } from './preview.handlers';
import { ReportQueries } from './report-queries.application';
import { ReportRepository } from './report.repository';

@Module({
  imports: [TrafficModule],
  controllers: [PreviewHandlers],
  providers: [ReportQueries, ReportRepository, FlowQueries, FlowsRepository],
})
export class ReportModule {}
