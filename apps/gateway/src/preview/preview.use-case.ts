import { Injectable } from '@nestjs/common';
import { ListPreviewLogsResponse, PREVIEW_SUBJECTS, PreviewReport } from '@rollout/contracts';
import { BackendClient } from '../http/backend-client';
import type { ExperimentPath } from '../experiments/experiments.use-case';

const experimentName = (p: ExperimentPath) =>
  `projects/${p.project}/locations/${p.location}/firewallPolicies/${p.policy}/experiments/${p.experiment}`;

/** What previewing an experiment did to production traffic: asked of the evaluator over NATS. */
@Injectable()
export class PreviewUseCase {
  constructor(private readonly backend: BackendClient) {}

  previewLogs(path: ExperimentPath, query: { changedOnly?: boolean; pageSize?: number; pageToken?: string }, traceId?: string) {
    return this.backend.call<ListPreviewLogsResponse>(PREVIEW_SUBJECTS.previewLogs, { name: experimentName(path), ...query }, traceId);
  }

  previewReport(path: ExperimentPath, traceId?: string) {
    return this.backend.call<PreviewReport>(PREVIEW_SUBJECTS.previewReport, { name: experimentName(path) }, traceId);
  }
}
