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
import { PreviewQueries } from './preview.queries';
import { ReportReadiness } from './report-readiness';

/** preview.v1 request/reply (queue group `evaluator`): what the gateway's preview routes ask. */
@Controller()
export class PreviewController {
  constructor(
    private readonly queries: PreviewQueries,
    private readonly readiness: ReportReadiness,
  ) {}

  /** Deprecated (preview.v1 1.1.0): sample records of the changed flows. */
  @MessagePattern(PREVIEW_SUBJECTS.previewLogs)
  previewLogs(@Payload() request: ListPreviewLogsRequest): Promise<ListPreviewLogsResponse> {
    return this.queries.listLogs(request);
  }

  @MessagePattern(PREVIEW_SUBJECTS.previewFlows)
  previewFlows(@Payload() request: ListPreviewFlowsRequest): Promise<ListPreviewFlowsResponse> {
    return this.queries.listFlows(request);
  }

  @MessagePattern(PREVIEW_SUBJECTS.previewReport)
  async previewReport(@Payload() request: GetPreviewReportRequest): Promise<PreviewReport> {
    return this.readiness.complete(await this.queries.report(request));
  }
}
