import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, NatsContext, Payload } from '@nestjs/microservices';
import {
  GetPreviewReportRequest,
  ListPreviewFlowsRequest,
  ListPreviewFlowsResponse,
  ListPreviewLogsRequest,
  ListPreviewLogsResponse,
  PREVIEW_SUBJECTS,
  PreviewReport,
} from '@rollout/contracts';
import { StateFence } from '../state/state-fence';
import { FlowQueries } from './flow-queries.application';
import { ReportQueries } from './report-queries.application';

/**
 * preview.v1 request/reply (queue group `evaluator`): what the gateway's preview routes ask,
 * each answered once the snapshot holds the changes answered before it (StateFence).
 */
@Controller()
export class PreviewHandlers {
  constructor(
    private readonly reports: ReportQueries,
    private readonly flows: FlowQueries,
    private readonly fence: StateFence,
  ) {}

  /** Deprecated (preview.v1 1.1.0): sample records of the changed flows. */
  @MessagePattern(PREVIEW_SUBJECTS.previewLogs)
  async previewLogs(
    @Payload() request: ListPreviewLogsRequest,
    @Ctx() context: NatsContext,
  ): Promise<ListPreviewLogsResponse> {
    await this.fence.passed(context);
    return this.flows.listLogs(request);
  }

  @MessagePattern(PREVIEW_SUBJECTS.previewFlows)
  async previewFlows(
    @Payload() request: ListPreviewFlowsRequest,
    @Ctx() context: NatsContext,
  ): Promise<ListPreviewFlowsResponse> {
    await this.fence.passed(context);
    return this.flows.listFlows(request);
  }

  @MessagePattern(PREVIEW_SUBJECTS.previewReport)
  async previewReport(
    @Payload() request: GetPreviewReportRequest,
    @Ctx() context: NatsContext,
  ): Promise<PreviewReport> {
    await this.fence.passed(context);
    return this.reports.report(request);
  }
}
