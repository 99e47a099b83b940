import { Injectable } from '@nestjs/common';
import {
  EXPERIMENT_SUBJECTS,
  FirewallPolicyExperiment,
  ListPreviewFlowsResponse,
  ListPreviewLogsResponse,
  PREVIEW_SUBJECTS,
  PreviewReport,
  StatusError,
  formatExperimentName,
} from '@rollout/contracts';
import { BackendClient } from '../http/backend-client';
import type { ExperimentPath } from '../experiments/experiments.client';

const isNotFound = (error: unknown) => error instanceof StatusError && error.status === 'NOT_FOUND';

/** The experiment-service, the authority, is asked at the same time whether the experiment exists. */
@Injectable()
export class PreviewClient {
  constructor(private readonly backend: BackendClient) {}

  previewFlows(
    path: ExperimentPath,
    query: { filter?: string; pageSize?: number; pageToken?: string },
    traceId?: string,
  ) {
    const parent = formatExperimentName(path);
    const answer = this.backend.call<ListPreviewFlowsResponse>(
      PREVIEW_SUBJECTS.previewFlows,
      { parent, ...query },
      traceId,
    );
    return this.ofExisting(parent, answer, (page) => page.previewFlows.length > 0, traceId);
  }

  /** Deprecated (preview.v1 1.1.0): BackendClient marks the response and counts the use. */
  previewLogs(
    path: ExperimentPath,
    query: { changedOnly?: boolean; pageSize?: number; pageToken?: string },
    traceId?: string,
  ) {
    const name = formatExperimentName(path);
    const answer = this.backend.call<ListPreviewLogsResponse>(
      PREVIEW_SUBJECTS.previewLogs,
      { name, ...query },
      traceId,
    );
    return this.ofExisting(name, answer, (page) => page.previewLogs.length > 0, traceId);
  }

  previewReport(
    path: ExperimentPath,
    page: { pageSize?: number; pageToken?: string } = {},
    traceId?: string,
  ) {
    const name = formatExperimentName(path);
    const answer = this.backend.call<PreviewReport>(
      PREVIEW_SUBJECTS.previewReport,
      { name, ...page },
      traceId,
    );
    return this.ofExisting(name, answer, (report) => report.configurations.length > 0, traceId);
  }

  /**
   * A committed or deleted experiment stays readable for audit: NOT_FOUND from the experiment-service
   * is forgiven only when the evaluator's answer holds something (an empty one may be a name that never was).
   */
  private async ofExisting<T>(
    name: string,
    answer: Promise<T>,
    holdsData: (answer: T) => boolean,
    traceId?: string,
  ): Promise<T> {
    const [exists, result] = await Promise.allSettled([
      this.backend.call<FirewallPolicyExperiment>(
        EXPERIMENT_SUBJECTS.getExperiment,
        { name },
        traceId,
      ),
      answer,
    ]);
    if (exists.status === 'rejected') {
      if (isNotFound(exists.reason) && result.status === 'fulfilled' && holdsData(result.value))
        return result.value;
      throw exists.reason;
    }
    if (result.status === 'rejected') throw result.reason;
    return result.value;
  }
}
