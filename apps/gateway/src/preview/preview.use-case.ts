import { Injectable } from '@nestjs/common';
import { EXPERIMENT_SUBJECTS, FirewallPolicyExperiment, ListPreviewLogsResponse, PREVIEW_SUBJECTS, PreviewReport } from '@rollout/contracts';
import { BackendClient } from '../http/backend-client';
import type { ExperimentPath } from '../experiments/experiments.use-case';

const experimentName = (p: ExperimentPath) =>
  `projects/${p.project}/locations/${p.location}/firewallPolicies/${p.policy}/experiments/${p.experiment}`;

/**
 * What previewing an experiment did to production traffic: the records and report come from
 * the evaluator; whether the experiment exists (404 otherwise) from the experiment-service, the
 * authority, asked at the same time.
 */
@Injectable()
export class PreviewUseCase {
  constructor(private readonly backend: BackendClient) {}

  previewLogs(path: ExperimentPath, query: { changedOnly?: boolean; pageSize?: number; pageToken?: string }, traceId?: string) {
    const name = experimentName(path);
    return this.ofExisting(name, this.backend.call<ListPreviewLogsResponse>(PREVIEW_SUBJECTS.previewLogs, { name, ...query }, traceId), traceId);
  }

  previewReport(path: ExperimentPath, traceId?: string) {
    const name = experimentName(path);
    return this.ofExisting(name, this.backend.call<PreviewReport>(PREVIEW_SUBJECTS.previewReport, { name }, traceId), traceId);
  }

  private async ofExisting<T>(name: string, answer: Promise<T>, traceId?: string): Promise<T> {
    const [exists, result] = await Promise.allSettled([this.backend.call<FirewallPolicyExperiment>(EXPERIMENT_SUBJECTS.getExperiment, { name }, traceId), answer]);
    if (exists.status === 'rejected') throw exists.reason;
    if (result.status === 'rejected') throw result.reason;
    return result.value;
  }
}
