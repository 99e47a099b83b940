import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  GetPreviewReportRequest,
  ListPreviewFlowsRequest,
  ListPreviewFlowsResponse,
  ListPreviewLogsRequest,
  ListPreviewLogsResponse,
  PREVIEW_SUBJECTS,
  PreviewReport,
} from '@rollout/contracts';
import { FlowQueries } from './flow-queries.application';
import { ReportQueries } from './report-queries.application';

/** preview.v1 request/reply (queue group `evaluator`): what the gateway's preview routes ask. */
@Controller()
export class PreviewHandlers {
  constructor(
    private readonly reports: ReportQueries,
    private readonly flows: FlowQueries,
  ) {}

  /** Deprecated (preview.v1 1.1.0): sample records of the changed flows. */
  @MessagePattern(PREVIEW_SUBJECTS.previewLogs)
  previewLogs(@Payload() request: ListPreviewLogsRequest): Promise<ListPreviewLogsResponse> {
    return this.flows.listLogs(request);
  }

  @MessagePattern(PREVIEW_SUBJECTS.previewFlows)
  previewFlows(@Payload() request: ListPreviewFlowsRequest): Promise<ListPreviewFlowsResponse> {
    return this.flows.listFlows(request);
  }

  @MessagePattern(PREVIEW_SUBJECTS.previewReport)
  previewReport(@Payload() request: GetPreviewReportRequest): Promise<PreviewReport> {
    return this.reports.report(request);
  }
}
