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
} from '@rollout/contracts';
import { ApiError, errorFromResponse, networkError } from './errors';
import { newRequestId } from './request-id';

/** A policy's or an experiment's history (GET …/events). */
export interface ListHistoryEventsResponse {
  events: HistoryEvent[];
}

/** Who the token is (GET /v1/principal). */
export interface Principal {
  name: string;
  roles: string[];
  projects: string[];
  allProjects: boolean;
}

/** A policy's place: the parent of its name (`projects/{p}/locations/{l}`). */
export interface PolicyRef {
  project: string;
  location: string;
  policy: string;
}

export interface ExperimentRef extends PolicyRef {
  experiment: string;
}

export const segment = encodeURIComponent;
export const policiesPath = (project: string, location: string) =>
  `/v1/projects/${segment(project)}/locations/${segment(location)}/firewallPolicies`;
export const policyPath = (ref: PolicyRef) =>
  `${policiesPath(ref.project, ref.location)}/${segment(ref.policy)}`;
export const experimentPath = (ref: ExperimentRef) =>
  `${policyPath(ref)}/experiments/${segment(ref.experiment)}`;
export const query = (params: Record<string, string | number | undefined>) => {
  const entries = Object.entries(params).filter(
    (entry): entry is [string, string | number] => entry[1] !== undefined && entry[1] !== '',
  );
  return entries.length
    ? `?${new URLSearchParams(entries.map(([key, value]) => [key, String(value)]))}`
    : '';
};

/**
 * The gateway's API as the console calls it. The token travels only in the Authorization
 * header, never in a URL; every failure is thrown as an ApiError carrying a sentence.
 */
export class ApiClient {
  constructor(
    private readonly token: string,
    private readonly onUnauthenticated: () => void = () => undefined,
  ) {}

  /** One call; a fresh x-request-id each time, so the audit trail names the very call. */
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
  /** With the reportEtag the operator read: a report whose verdicts changed since refuses it. */
  commit = (ref: ExperimentRef, etag: string, livePolicyEtag: string, reportEtag?: string) =>
    this.call<Operation<FirewallPolicy>>('POST', `${experimentPath(ref)}:commit`, {
      etag,
      livePolicyEtag,
      ...(reportEtag ? { reportEtag } : {}),
    });
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
  /** `operations/{id}` asked again (a backtest's progress and result). */
  operation = <T>(name: string) =>
    this.call<T>('GET', `/v1/operations/${segment(name.replace(/^operations\//, ''))}`);
}
