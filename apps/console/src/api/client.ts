import type {
  BacktestOperation,
  FirewallPolicy,
  FirewallPolicyExperiment,
  FirewallRule,
  ListExperimentsResponse,
  HistoryEvent,
  ListPoliciesResponse,
  ListPreviewFlowsResponse,
  Operation,
  PreviewReport,
  ExperimentName,
  ParentName,
  PolicyName,
} from '@rollout/contracts';
import {
  formatExperimentName,
  formatParent,
  formatPolicies,
  formatPolicyName,
} from '@rollout/contracts';
import { ApiError, errorFromResponse, networkError } from './errors';
import { newRequestId } from './request-id';

export interface ListHistoryEventsResponse {
  events: HistoryEvent[];
}

export interface Principal {
  name: string;
  roles: string[];
  projects: string[];
  allProjects: boolean;
}

export interface CommitBinding {
  etag: string;
  livePolicyEtag: string;
  reportEtag?: string;
  /** Kept in the revision; empty: none. */
  reason?: string;
}

export type PolicyRef = Pick<PolicyName, 'project' | 'location' | 'policy'>;
export type ExperimentRef = Pick<ExperimentName, 'project' | 'location' | 'policy' | 'experiment'>;

export const segment = encodeURIComponent;
/** Each id escaped: a valid id is unchanged, a mistyped one (from a URL) cannot change the path. */
const escaped = <T extends ParentName>(ref: T): T =>
  Object.fromEntries(
    Object.entries(ref).map(([key, id]) => [key, segment(String(id))]),
  ) as unknown as T;

/** Formatted by the contracts' names module: the API path after `/v1/`, the console's fragment after `#/`. */
export const escapedName = {
  parent: (project: string, location: string) => formatParent(escaped({ project, location })),
  policies: (project: string, location: string) => formatPolicies(escaped({ project, location })),
  policy: (ref: PolicyRef) => formatPolicyName(escaped(ref)),
  experiment: (ref: ExperimentRef) => formatExperimentName(escaped(ref)),
};
export const parentPath = (project: string, location: string) =>
  `/v1/${escapedName.parent(project, location)}`;
export const policiesPath = (project: string, location: string) =>
  `/v1/${escapedName.policies(project, location)}`;
export const policyPath = (ref: PolicyRef) => `/v1/${escapedName.policy(ref)}`;
export const experimentPath = (ref: ExperimentRef) => `/v1/${escapedName.experiment(ref)}`;
export const query = (params: Record<string, string | number | undefined>) => {
  const entries = Object.entries(params).filter(
    (entry): entry is [string, string | number] => entry[1] !== undefined && entry[1] !== '',
  );
  return entries.length
    ? `?${new URLSearchParams(entries.map(([key, value]) => [key, String(value)]))}`
    : '';
};

/** The token travels only in the Authorization header, never in a URL. */
export class ApiClient {
  constructor(
    private readonly token: string,
    private readonly onUnauthenticated: () => void = () => undefined,
  ) {}

  /** A fresh x-request-id each time, so the audit trail names the very call. */
  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(path, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          'x-request-id': newRequestId(),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
      });
    } catch {
      throw networkError();
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const error = errorFromResponse(response.status, parsed);
      if (error.code === 'UNAUTHENTICATED') this.onUnauthenticated();
      throw error;
    }
    if (parsed === undefined)
      throw new ApiError(
        'The gateway answered with something that is not JSON.',
        response.status,
        'UNREADABLE',
      );
    return parsed as T;
  }

  principal = () => this.call<Principal>('GET', '/v1/principal');

  listPolicies = (project: string, location: string, pageSize: number, pageToken?: string) =>
    this.call<ListPoliciesResponse>(
      'GET',
      `${policiesPath(project, location)}${query({ pageSize, pageToken })}`,
    );
  getPolicy = (ref: PolicyRef) => this.call<FirewallPolicy>('GET', policyPath(ref));
  createPolicy = (
    project: string,
    location: string,
    id: string,
    policy: { displayName?: string; rules: FirewallRule[] },
  ) =>
    this.call<FirewallPolicy>(
      'POST',
      `${policiesPath(project, location)}${query({ firewallPolicyId: id })}`,
      policy,
    );
  policyHistory = (ref: PolicyRef) =>
    this.call<ListHistoryEventsResponse>('GET', `${policyPath(ref)}/events`);

  listExperiments = (ref: PolicyRef, pageToken?: string) =>
    this.call<ListExperimentsResponse>(
      'GET',
      `${policyPath(ref)}/experiments${query({ pageSize: 100, pageToken })}`,
    );
  getExperiment = (ref: ExperimentRef) =>
    this.call<FirewallPolicyExperiment>('GET', experimentPath(ref));
  createExperiment = (ref: PolicyRef, id: string, rules: FirewallRule[]) =>
    this.call<Operation<FirewallPolicyExperiment>>(
      'POST',
      `${policyPath(ref)}/experiments${query({ experimentId: id })}`,
      { firewallPolicy: { rules } },
    );
  updateExperiment = (ref: ExperimentRef, rules: FirewallRule[], etag: string) =>
    this.call<Operation<FirewallPolicyExperiment>>(
      'PATCH',
      `${experimentPath(ref)}${query({ updateMask: 'firewallPolicy.rules' })}`,
      { firewallPolicy: { rules }, etag },
    );
  deleteExperiment = (ref: ExperimentRef, etag: string) =>
    this.call<Operation>('DELETE', `${experimentPath(ref)}${query({ etag })}`);
  startPreview = (ref: ExperimentRef) =>
    this.call<Operation<FirewallPolicyExperiment>>('POST', `${experimentPath(ref)}:startPreview`);
  stopPreview = (ref: ExperimentRef) =>
    this.call<Operation<FirewallPolicyExperiment>>('POST', `${experimentPath(ref)}:stopPreview`);
  /** Refused when the report's verdicts changed since the operator read it; an approval is checked against its approver's. */
  commit = (
    ref: ExperimentRef,
    bound: CommitBinding,
    verb: 'commit' | 'proposeCommit' | 'approveCommit' = 'commit',
  ) =>
    this.call<Operation<FirewallPolicy | FirewallPolicyExperiment>>(
      'POST',
      `${experimentPath(ref)}:${verb}`,
      {
        etag: bound.etag,
        livePolicyEtag: bound.livePolicyEtag,
        ...(bound.reportEtag ? { reportEtag: bound.reportEtag } : {}),
        ...(bound.reason ? { reason: bound.reason } : {}),
      },
    );
  experimentHistory = (ref: ExperimentRef) =>
    this.call<ListHistoryEventsResponse>('GET', `${experimentPath(ref)}/events`);

  previewReport = (ref: ExperimentRef) =>
    this.call<PreviewReport>('GET', `${experimentPath(ref)}/previewReport`);
  previewFlows = (ref: ExperimentRef, filter: string, pageSize: number, pageToken?: string) =>
    this.call<ListPreviewFlowsResponse>(
      'GET',
      `${experimentPath(ref)}/previewFlows${query({ filter, pageSize, pageToken })}`,
    );
  backtest = (ref: ExperimentRef) =>
    this.call<BacktestOperation>('POST', `${experimentPath(ref)}:backtest`, {});
  operation = <T>(name: string) =>
    this.call<T>('GET', `/v1/operations/${segment(name.replace(/^operations\//, ''))}`);
}
