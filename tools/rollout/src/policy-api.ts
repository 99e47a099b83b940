import { RESOURCE_ID } from '@rollout/contracts';
import type {
  BacktestOperation,
  FirewallPolicy,
  FirewallPolicyExperiment,
  Operation,
  PreviewFlow,
  PreviewReport,
  Revision,
  RuleDiff,
} from '@rollout/contracts';
import { CliError, Gateway } from './gateway';
import type { NormalisedPolicy } from './policy-file';

/** Nothing here decides: every check is the service's. */
const POLICY_NAME = /^projects\/([^/]+)\/locations\/([^/]+)\/firewallPolicies\/([^/]+)$/;

export function policyName(reference: string, project?: string, location = 'global'): string {
  if (POLICY_NAME.test(reference)) return reference;
  if (!RESOURCE_ID.test(reference))
    throw new CliError(
      `"${reference}" is not a policy: give projects/P/locations/L/firewallPolicies/ID, or the id with --project.`,
    );
  if (!project)
    throw new CliError(`which project is "${reference}" in? Give --project (or ROLLOUT_PROJECT).`);
  return `projects/${project}/locations/${location}/firewallPolicies/${reference}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Progress {
  (line: string): void;
}

export class PolicyApi {
  constructor(
    readonly gateway: Gateway,
    private readonly progress: Progress = () => undefined,
  ) {}

  getPolicy(name: string) {
    return this.gateway.get<FirewallPolicy>(`/v1/${name}`);
  }

  async findExperiment(name: string): Promise<FirewallPolicyExperiment | undefined> {
    try {
      return await this.gateway.get<FirewallPolicyExperiment>(`/v1/${name}`);
    } catch (error) {
      if (error instanceof CliError && error.status?.status === 'NOT_FOUND') return undefined;
      throw error;
    }
  }

  async putExperiment(
    policy: string,
    id: string,
    content: NormalisedPolicy,
    same: (experiment: FirewallPolicyExperiment) => boolean,
  ): Promise<FirewallPolicyExperiment> {
    const name = `${policy}/experiments/${id}`;
    const existing = await this.findExperiment(name);
    const firewallPolicy = { name: policy, ...content };
    if (!existing) {
      const operation = await this.gateway.post<Operation>(
        `/v1/${policy}/experiments?experimentId=${id}`,
        { firewallPolicy },
      );
      return operation.response as unknown as FirewallPolicyExperiment;
    }
    if (same(existing)) return existing;
    const operation = await this.gateway.patch<Operation>(`/v1/${name}?updateMask=firewallPolicy`, {
      firewallPolicy,
      etag: existing.etag,
    });
    return operation.response as unknown as FirewallPolicyExperiment;
  }

  async experimentFromRevision(policy: string, id: string, revisionId: string) {
    const name = `${policy}/experiments/${id}`;
    const existing = await this.findExperiment(name);
    if (existing)
      await this.gateway.delete(`/v1/${name}?etag=${encodeURIComponent(existing.etag)}`);
    const operation = await this.gateway.post<Operation>(
      `/v1/${policy}/experiments?experimentId=${id}`,
      { sourceRevision: revisionId },
    );
    return operation.response as unknown as FirewallPolicyExperiment;
  }

  report(experiment: string) {
    return this.gateway.get<PreviewReport>(`/v1/${experiment}/previewReport`);
  }

  /** So that a backtest replays the version planned and not the one before. */
  async reportFor(experiment: string, etag: string, timeoutMs = 60_000): Promise<PreviewReport> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const report = await this.report(experiment);
        if (report.readiness?.currentExperimentEtag === etag) return report;
      } catch (error) {
        // The evaluator may not have seen the experiment's creation yet.
        if (!(error instanceof CliError) || error.status?.status !== 'NOT_FOUND') throw error;
      }
      if (Date.now() > deadline)
        throw new CliError(
          `the evaluator has not taken up ${experiment} (etag ${etag}) after ${timeoutMs / 1000} s: is it running?`,
        );
      await sleep(100);
    }
  }

  async backtest(experiment: string): Promise<BacktestOperation> {
    let operation = await this.gateway.post<BacktestOperation>(`/v1/${experiment}:backtest`);
    let last = 0;
    while (!operation.done) {
      await sleep(200);
      operation = await this.gateway.get<BacktestOperation>(`/v1/${operation.name}`);
      if (Date.now() - last > 2000) {
        last = Date.now();
        this.progress(`backtest: ${operation.metadata.eventsReplayed} events replayed`);
      }
    }
    if (operation.error)
      throw new CliError(
        `the backtest failed: ${operation.error.status}: ${operation.error.message}`,
      );
    return operation;
  }

  ruleDiff(experiment: string) {
    return this.gateway.get<RuleDiff>(`/v1/${experiment}:diff`);
  }

  /** Starting and stopping move the etag: the answer names the version a commit must name. */
  async preview(experiment: string, ms: number) {
    const started = await this.gateway.post<Operation>(`/v1/${experiment}:startPreview`);
    this.progress(`live preview: ${Math.round(ms / 1000)} s`);
    await sleep(ms);
    const stopped = await this.gateway.post<Operation>(
      `/v1/${experiment}:stopPreview?reason=${encodeURIComponent('rollout plan: preview window over')}`,
    );
    const previewedEtag = (started.response as unknown as FirewallPolicyExperiment).etag;
    const etag = (stopped.response as unknown as FirewallPolicyExperiment).etag;
    return { previewedEtag, etag, report: await this.reportFor(experiment, etag) };
  }

  async flows(experiment: string, experimentEtag: string, livePolicyEtag: string, max = 10_000) {
    const flows: PreviewFlow[] = [];
    let pageToken: string | undefined;
    do {
      const query = new URLSearchParams({ pageSize: '1000' });
      if (pageToken) query.set('pageToken', pageToken);
      const page = await this.gateway.get<{ previewFlows: PreviewFlow[]; nextPageToken?: string }>(
        `/v1/${experiment}/previewFlows?${query}`,
      );
      flows.push(
        ...page.previewFlows.filter(
          (f) => f.experimentEtag === experimentEtag && f.livePolicyEtag === livePolicyEtag,
        ),
      );
      pageToken = page.nextPageToken;
    } while (pageToken && flows.length < max);
    return flows;
  }

  getRevision(policy: string, revisionId: string) {
    return this.gateway.get<Revision>(`/v1/${policy}/revisions/${revisionId}`);
  }

  listRevisions(policy: string, pageSize: number) {
    return this.gateway.get<{ revisions: Revision[] }>(
      `/v1/${policy}/revisions?pageSize=${pageSize}`,
    );
  }

  /** AIP-136 custom methods; the service's etag checks refuse it when any bound version moved. */
  commitVerb(experiment: string, verb: CommitVerb, body: CommitBody) {
    return this.gateway.post<Operation>(`/v1/${experiment}:${verb}`, body);
  }
}

export type CommitVerb = 'commit' | 'proposeCommit' | 'approveCommit';

export interface CommitBody {
  etag: string;
  livePolicyEtag: string;
  reportEtag?: string;
  requestId: string;
  reason?: string;
}
