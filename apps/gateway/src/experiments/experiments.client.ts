import { Injectable } from '@nestjs/common';
import {
  EXPERIMENT_SUBJECTS as S,
  FirewallPolicy,
  FirewallPolicyExperiment,
  HistoryEvent,
  ListExperimentsResponse,
  ListPoliciesResponse,
  Operation,
  PREVIEW_SUBJECTS,
  PreviewReport,
  formatExperimentName,
  formatPolicyName,
  formatParent,
} from '@rollout/contracts';
import { CommitEvidence, checkCommitEvidence, evidenceRecord } from './commit-evidence';
import { BackendClient } from '../http/backend-client';

export interface PolicyPath {
  project: string;
  location: string;
  policy: string;
}
export interface ExperimentPath extends PolicyPath {
  experiment: string;
}
/** The AIP-155 request id, distinct from the HTTP x-request-id used for tracing. */
export interface Caller {
  actor: string;
  commandId?: string;
  traceId?: string;
}

/** AIP-236; the experiment-service validates and decides. */
@Injectable()
export class ExperimentsClient {
  constructor(private readonly backend: BackendClient) {}

  createPolicy(
    parent: { project: string; location: string },
    firewallPolicyId: string,
    firewallPolicy: object,
    caller: Caller,
  ) {
    return this.backend.call<FirewallPolicy>(
      S.createPolicy,
      { parent: formatParent(parent), firewallPolicyId, firewallPolicy, ...command(caller) },
      caller.traceId,
    );
  }

  listPolicies(
    parent: { project: string; location: string },
    page: { pageSize?: number; pageToken?: string },
    traceId?: string,
  ) {
    return this.backend.call<ListPoliciesResponse>(
      S.listPolicies,
      { parent: formatParent(parent), ...page },
      traceId,
    );
  }

  getPolicy(path: PolicyPath, traceId?: string) {
    return this.backend.call<FirewallPolicy>(
      S.getPolicy,
      { name: formatPolicyName(path) },
      traceId,
    );
  }

  updatePolicy(
    path: PolicyPath,
    firewallPolicy: object,
    updateMask: string | undefined,
    caller: Caller,
  ) {
    return this.backend.call<FirewallPolicy>(
      S.updatePolicy,
      {
        firewallPolicy: { ...firewallPolicy, name: formatPolicyName(path) },
        updateMask,
        ...command(caller),
      },
      caller.traceId,
    );
  }

  deletePolicy(path: PolicyPath, etag: string | undefined, caller: Caller) {
    return this.backend.call<Record<string, never>>(
      S.deletePolicy,
      { name: formatPolicyName(path), etag, ...command(caller) },
      caller.traceId,
    );
  }

  policyEvents(path: PolicyPath, traceId?: string) {
    return this.backend.call<{ events: HistoryEvent[] }>(
      S.policyEvents,
      { name: formatPolicyName(path) },
      traceId,
    );
  }

  createExperiment(path: PolicyPath, experimentId: string, experiment: object, caller: Caller) {
    return this.backend.call<Operation<FirewallPolicyExperiment>>(
      S.createExperiment,
      { parent: formatPolicyName(path), experimentId, experiment, ...command(caller) },
      caller.traceId,
    );
  }

  listExperiments(
    path: PolicyPath,
    query: { filter?: string; pageSize?: number; pageToken?: string },
    traceId?: string,
  ) {
    return this.backend.call<ListExperimentsResponse>(
      S.listExperiments,
      { parent: formatPolicyName(path), ...query },
      traceId,
    );
  }

  getExperiment(path: ExperimentPath, traceId?: string) {
    return this.backend.call<FirewallPolicyExperiment>(
      S.getExperiment,
      { name: formatExperimentName(path) },
      traceId,
    );
  }

  updateExperiment(
    path: ExperimentPath,
    experiment: object,
    updateMask: string | undefined,
    caller: Caller,
  ) {
    return this.backend.call<Operation<FirewallPolicyExperiment>>(
      S.updateExperiment,
      {
        experiment: { ...experiment, name: formatExperimentName(path) },
        updateMask,
        ...command(caller),
      },
      caller.traceId,
    );
  }

  deleteExperiment(path: ExperimentPath, etag: string | undefined, caller: Caller) {
    return this.backend.call<Operation>(
      S.deleteExperiment,
      { name: formatExperimentName(path), etag, ...command(caller) },
      caller.traceId,
    );
  }

  customMethod(
    path: ExperimentPath,
    method: CustomMethod,
    body: {
      etag?: string;
      livePolicyEtag?: string;
      parentEtag?: string;
      reason?: string;
      evidence?: object;
    },
    caller: Caller,
  ) {
    return this.backend.call<Operation>(
      CUSTOM_METHODS[method],
      { name: formatExperimentName(path), ...body, ...command(caller) },
      caller.traceId,
    );
  }

  /** With `requireGates` or `reportEtag`, bound to the live policy version the gates were judged against. */
  async commit(
    path: ExperimentPath,
    body: { etag?: string; livePolicyEtag?: string; parentEtag?: string; reason?: string },
    evidence: CommitEvidence,
    caller: Caller,
    method: 'commit' | 'proposeCommit' | 'approveCommit' = 'commit',
  ) {
    if (!evidence.requireGates && evidence.reportEtag === undefined)
      return this.customMethod(path, method, body, caller);
    const report = await this.backend.call<PreviewReport>(
      PREVIEW_SUBJECTS.previewReport,
      { name: formatExperimentName(path) },
      caller.traceId,
    );
    const livePolicyEtag = checkCommitEvidence(report, evidence, {
      etag: body.etag,
      livePolicyEtag: body.livePolicyEtag ?? body.parentEtag,
    });
    return this.customMethod(
      path,
      method,
      {
        ...body,
        ...(body.parentEtag === undefined && livePolicyEtag !== undefined
          ? { livePolicyEtag }
          : {}),
        evidence: evidenceRecord(report, evidence),
      },
      caller,
    );
  }

  experimentEvents(path: ExperimentPath, traceId?: string) {
    return this.backend.call<{ events: HistoryEvent[] }>(
      S.experimentEvents,
      { name: formatExperimentName(path) },
      traceId,
    );
  }
}

export const CUSTOM_METHODS = {
  startPreview: S.startPreview,
  stopPreview: S.stopPreview,
  commit: S.commit,
  proposeCommit: S.proposeCommit,
  approveCommit: S.approveCommit,
} as const;
export type CustomMethod = keyof typeof CUSTOM_METHODS;

export const command = (caller: Caller) => ({
  actor: caller.actor,
  ...(caller.commandId ? { requestId: caller.commandId } : {}),
  ...(caller.traceId ? { traceId: caller.traceId } : {}),
});
