import {
  EXPERIMENT_STATE_BUCKET,
  ExperimentEvent,
  FirewallRule,
  PolicyEvent,
  PreviewState as ContractPreviewState,
  ReadinessGate,
  STATE_POSITION_KEY,
  STATE_VERSION_HEADER,
  experimentStateKey,
  policyStateKey,
} from '@rollout/contracts';
import { kvDeletionHeaders, kvSubject } from '@rollout/platform/nats';
import { Empty, JSONCodec, NatsConnection, headers as natsHeaders } from 'nats';
import { randomUUID } from 'node:crypto';
import type { Isolation } from './evaluator-app';

const codec = JSONCodec<unknown>();
/** The time of every state event of the world, and of traffic event 0. */
export const T0 = '2025-06-01T00:00:00.000Z';

/**
 * A stand-in for the experiment-service that writes experiment.v1 current state as its state
 * relay does (the last event of each aggregate, full state included, or a delete marker; one key each).
 */
/**
 * The experiment-service's side of the world: live policies and experiments as entries of the
 * EXPERIMENT_STATE bucket, written in the form its state relay writes them (see experiment.v1).
 */
export class ExperimentWorld {
  private readonly versions = new Map<string, number>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly iso: Isolation,
    readonly project = 'acme',
    readonly location = 'global',
  ) {}

  /** The bucket as the experiment-service declares it; `filled` also writes its position key. */
  async createBucket({ filled = true } = {}): Promise<void> {
    await this.nc.jetstream().views.kv(this.bucket, { history: 1 });
    if (filled) await this.markFilled();
  }

  /** What the state relay writes once the bucket holds every committed event. */
  async markFilled(): Promise<void> {
    const headers = natsHeaders();
    headers.set('Event-Tx', '1');
    headers.set('Event-Position', '1');
    await this.nc
      .jetstream()
      .publish(kvSubject(this.bucket, STATE_POSITION_KEY), Empty, { headers });
  }

  private get bucket(): string {
    return this.iso.ns.bucket(EXPERIMENT_STATE_BUCKET);
  }

  policyName(policy: string): string {
    return `projects/${this.project}/locations/${this.location}/firewallPolicies/${policy}`;
  }

  experimentName(policy: string, experiment: string): string {
    return `${this.policyName(policy)}/experiments/${experiment}`;
  }

  /** Creates or updates a live policy; returns its new etag. */
  async policy(policy: string, rules: FirewallRule[]): Promise<string> {
    const name = this.policyName(policy);
    const version = this.next(name);
    const etag = `${policy}-L${version}`;
    const event: PolicyEvent = {
      id: randomUUID(),
      type: version === 1 ? 'PolicyCreated' : 'PolicyUpdated',
      subject: name,
      version,
      time: T0,
      actor: 'test',
      state: { name, rules, etag, createTime: T0, updateTime: T0 },
    };
    await this.write(policyStateKey(this.project, this.location, policy), event);
    return etag;
  }

  async deletePolicy(policy: string): Promise<void> {
    await this.remove(
      policyStateKey(this.project, this.location, policy),
      this.next(this.policyName(policy)),
    );
  }

  /** Creates or changes an experiment (preview state, readiness gates and preview start as given); returns its new etag. */
  async experiment(
    policy: string,
    experiment: string,
    rules: FirewallRule[],
    preview?: ContractPreviewState,
    type?: ExperimentEvent['type'],
    readinessGates?: ReadinessGate[],
    startTime = T0,
  ): Promise<string> {
    const name = this.experimentName(policy, experiment);
    const version = this.next(name);
    const etag = `${experiment}-E${version}`;
    const event: ExperimentEvent = {
      id: randomUUID(),
      type:
        type ??
        (version === 1
          ? 'ExperimentCreated'
          : preview === 'ACTIVE'
            ? 'PreviewStarted'
            : preview === 'SUSPENDED'
              ? 'PreviewStopped'
              : 'ExperimentUpdated'),
      subject: name,
      version,
      time: T0,
      actor: 'test',
      state: {
        name,
        firewallPolicy: { name: this.policyName(policy), rules },
        ...(preview
          ? {
              previewMetadata: {
                state: preview,
                logPrefix: 'FirewallPolicyPreviewLog',
                startTime,
              },
            }
          : {}),
        ...(readinessGates ? { readinessGates } : {}),
        annotations: {},
        etag,
        createTime: T0,
        updateTime: T0,
      },
    };
    await this.write(experimentStateKey(this.project, this.location, policy, experiment), event);
    return etag;
  }

  /** ExperimentDeleted or ExperimentCommitted: the key is deleted. */
  async endExperiment(policy: string, experiment: string): Promise<void> {
    await this.remove(
      experimentStateKey(this.project, this.location, policy, experiment),
      this.next(this.experimentName(policy, experiment)),
    );
  }

  private next(name: string): number {
    const version = (this.versions.get(name) ?? 0) + 1;
    this.versions.set(name, version);
    return version;
  }

  private async write(key: string, event: PolicyEvent | ExperimentEvent) {
    const headers = natsHeaders();
    headers.set(STATE_VERSION_HEADER, String(event.version));
    await this.nc
      .jetstream()
      .publish(kvSubject(this.bucket, key), codec.encode(event), { headers });
  }

  private async remove(key: string, version: number) {
    const headers = kvDeletionHeaders();
    headers.set(STATE_VERSION_HEADER, String(version));
    await this.nc.jetstream().publish(kvSubject(this.bucket, key), Empty, { headers });
  }
}
