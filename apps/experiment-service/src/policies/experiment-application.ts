import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import {
  CommandContext,
  CommitRequest,
  CreateExperimentRequest,
  CreatePolicyRequest,
  DeleteRequest,
  ExperimentEvent,
  FirewallPolicy,
  FirewallPolicyExperiment,
  GetRequest,
  HistoryEvent,
  ListExperimentsResponse,
  ListPoliciesResponse,
  ListRequest,
  Operation,
  PolicyEvent,
  PreviewRequest,
  StatusError,
  UpdateExperimentRequest,
  UpdatePolicyRequest,
} from '@rollout/contracts';
import { EventStore, EventTransaction, OutboxRelay, StoredEvent } from '@rollout/event-store';
import {
  Clock,
  ExperimentState,
  PolicyState,
  checkId,
  decideCommit,
  decideCreateExperiment,
  decideCreatePolicy,
  decideDeleteExperiment,
  decideDeletePolicy,
  decideStartPreview,
  decideStopPreview,
  decideUpdateExperiment,
  decideUpdatePolicy,
  evolveExperiment,
  evolvePolicy,
  experimentView,
  parseExperimentName,
  parseParent,
  parsePolicyName,
  policyView,
} from '@rollout/experiment-domain';
import { NATS_CONNECTION, NatsNamespace } from '@rollout/nats';
import { randomUUID } from 'node:crypto';
import { JSONCodec, NatsConnection } from 'nats';
import { DataSource } from 'typeorm';
import { CLOCK } from '../clock';
import { ExperimentRecord, OperationRecord, PolicyRecord } from '../read-models/records';
import { decodePageToken, encodePageToken, pageSizeOf } from '../read-models/paging';
import { parseExperimentFilter } from '../read-models/filter';
import { loadExperiment, loadPolicy } from './aggregates';

const codec = JSONCodec();

/**
 * The experiment-service's use cases. Each command runs in one Postgres transaction: replay
 * the aggregate(s), decide, append with compare-and-set, update the read models, remember the
 * answer under the request id. The outbox relay then publishes the events to JetStream.
 */
@Injectable()
export class ExperimentApplication implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ExperimentApplication.name);
  private readonly store: EventStore;
  private readonly relay: OutboxRelay;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(NATS_CONNECTION) connection: NatsConnection,
    namespace: NatsNamespace,
  ) {
    this.store = new EventStore(dataSource);
    this.relay = new OutboxRelay(dataSource, this.store, connection.jetstream(), {
      name: 'EXPERIMENT_EVENTS',
      toMessage: (event) => ({ subject: namespace.subject(eventSubject(event)), payload: codec.encode(publishedEvent(event)) }),
      onError: (error) => this.logger.error({ err: error }, 'publishing events failed; will retry'),
    });
  }

  onApplicationBootstrap(): void {
    this.relay.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.relay.stop();
  }

  // ---------------------------------------------------------------- live policies

  createPolicy(request: CreatePolicyRequest): Promise<FirewallPolicy> {
    const { project, location } = parseParent(request.parent);
    const id = checkId('firewallPolicyId', request.firewallPolicyId);
    const name = `projects/${project}/locations/${location}/firewallPolicies/${id}`;
    return this.command(request, async (tx) => {
      const policy = await loadPolicy(tx, name);
      const after = await this.appendPolicy(tx, policy, decideCreatePolicy(policy, request.firewallPolicy, this.clock), request);
      return policyView(after);
    });
  }

  updatePolicy(request: UpdatePolicyRequest): Promise<FirewallPolicy> {
    const { name } = parsePolicyName(request.firewallPolicy?.name, 'firewallPolicy.name');
    return this.command(request, async (tx) => {
      const policy = await loadPolicy(tx, name);
      const events = decideUpdatePolicy(policy, request.firewallPolicy, request.updateMask, this.clock);
      return policyView(await this.appendPolicy(tx, policy, events, request));
    });
  }

  /** Deleting a live policy deletes its experiments with it, in the same transaction. */
  deletePolicy(request: DeleteRequest): Promise<Record<string, never>> {
    const { name } = parsePolicyName(request.name);
    return this.command(request, async (tx) => {
      const policy = await loadPolicy(tx, name);
      const events = decideDeletePolicy(policy, request.etag, this.clock);
      const experiments = await tx.manager.getRepository(ExperimentRecord).find({ where: { policyName: name } });
      for (const record of experiments) {
        const experiment = await loadExperiment(tx, record.name);
        await this.appendExperiment(tx, experiment, decideDeleteExperiment(experiment, undefined, this.clock), request);
      }
      await this.appendPolicy(tx, policy, events, request);
      return {};
    });
  }

  async getPolicy({ name }: GetRequest): Promise<FirewallPolicy> {
    parsePolicyName(name);
    const record = await this.dataSource.getRepository(PolicyRecord).findOneBy({ name });
    if (!record) throw StatusError.withReason('NOT_FOUND', `Firewall policy "${name}" not found.`, 'NOT_FOUND', { resource: name });
    return record.resource;
  }

  async listPolicies(request: ListRequest): Promise<ListPoliciesResponse> {
    const { project, location } = parseParent(request.parent);
    const parent = `projects/${project}/locations/${location}`;
    const size = pageSizeOf(request.pageSize);
    const after = decodePageToken(request.pageToken, parent);
    const rows: { resource: FirewallPolicy }[] = await this.dataSource.query(
      `SELECT resource FROM policies WHERE parent = $1 AND name > $2 ORDER BY name LIMIT $3`,
      [parent, after ?? '', size + 1],
    );
    const page = rows.slice(0, size).map((r) => r.resource);
    return { firewallPolicies: page, ...(rows.length > size ? { nextPageToken: encodePageToken(page.at(-1)!.name, parent) } : {}) };
  }

  policyEvents({ name }: GetRequest): Promise<{ events: HistoryEvent[] }> {
    parsePolicyName(name);
    return this.history(name);
  }

  // ---------------------------------------------------------------- experiments

  createExperiment(request: CreateExperimentRequest): Promise<Operation<FirewallPolicyExperiment>> {
    const { name: policyName } = parsePolicyName(request.parent, 'parent');
    const name = `${policyName}/experiments/${checkId('experimentId', request.experimentId)}`;
    return this.operation(request, 'create', name, async (tx) => {
      // One creation per policy at a time, so the experiment count is exact.
      await tx.manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [policyName]);
      const policy = await loadPolicy(tx, policyName);
      const experiment = await loadExperiment(tx, name);
      const count = await tx.manager.getRepository(ExperimentRecord).countBy({ policyName });
      const events = decideCreateExperiment(experiment, policy, count, request.experiment, this.clock);
      return experimentView(await this.appendExperiment(tx, experiment, events, request));
    });
  }

  updateExperiment(request: UpdateExperimentRequest): Promise<Operation<FirewallPolicyExperiment>> {
    const { name } = parseExperimentName(request.experiment?.name, 'experiment.name');
    return this.operation(request, 'update', name, async (tx) => {
      const experiment = await loadExperiment(tx, name);
      const events = decideUpdateExperiment(experiment, request.experiment, request.updateMask, this.clock);
      return experimentView(await this.appendExperiment(tx, experiment, events, request));
    });
  }

  deleteExperiment(request: DeleteRequest): Promise<Operation<Record<string, never>>> {
    const { name } = parseExperimentName(request.name);
    return this.operation(request, 'delete', name, async (tx) => {
      const experiment = await loadExperiment(tx, name);
      await this.appendExperiment(tx, experiment, decideDeleteExperiment(experiment, request.etag, this.clock), request);
      return {};
    });
  }

  startPreview(request: PreviewRequest): Promise<Operation<FirewallPolicyExperiment>> {
    return this.preview(request, 'startPreview', decideStartPreview);
  }

  stopPreview(request: PreviewRequest): Promise<Operation<FirewallPolicyExperiment>> {
    return this.preview(request, 'stopPreview', decideStopPreview);
  }

  /** Atomically: the live policy takes the experiment's policy, and the experiment is gone. */
  commit(request: CommitRequest): Promise<Operation<FirewallPolicy>> {
    const { name, policyName } = parseExperimentName(request.name);
    return this.operation(request, 'commit', name, async (tx) => {
      const experiment = await loadExperiment(tx, name);
      const policy = await loadPolicy(tx, policyName);
      const decision = decideCommit(experiment, policy, request, this.clock);
      await this.appendExperiment(tx, experiment, decision.experiment, request);
      return policyView(await this.appendPolicy(tx, policy, decision.policy, request));
    });
  }

  async getExperiment({ name }: GetRequest): Promise<FirewallPolicyExperiment> {
    parseExperimentName(name);
    const record = await this.dataSource.getRepository(ExperimentRecord).findOneBy({ name });
    if (!record) throw StatusError.withReason('NOT_FOUND', `Experiment "${name}" not found.`, 'NOT_FOUND', { resource: name });
    return record.resource;
  }

  async listExperiments(request: ListRequest): Promise<ListExperimentsResponse> {
    const { name: policyName } = parsePolicyName(request.parent, 'parent');
    const conditions = parseExperimentFilter(request.filter);
    const size = pageSizeOf(request.pageSize);
    const query = `${policyName}?${request.filter ?? ''}`;
    const after = decodePageToken(request.pageToken, query);
    const params: unknown[] = [policyName, after ?? '', size + 1];
    const where = conditions.map((c) => {
      params.push(c.state);
      return `coalesce(state, 'STATE_UNDEFINED') ${c.op === '=' ? '=' : '<>'} $${params.length}`;
    });
    const rows: { resource: FirewallPolicyExperiment }[] = await this.dataSource.query(
      `SELECT resource FROM experiments WHERE policy_name = $1 AND name > $2 ${where.map((w) => `AND ${w}`).join(' ')}
       ORDER BY name LIMIT $3`,
      params,
    );
    const page = rows.slice(0, size).map((r) => r.resource);
    return { experiments: page, ...(rows.length > size ? { nextPageToken: encodePageToken(page.at(-1)!.name, query) } : {}) };
  }

  experimentEvents({ name }: GetRequest): Promise<{ events: HistoryEvent[] }> {
    parseExperimentName(name);
    return this.history(name);
  }

  async getOperation({ name }: GetRequest): Promise<Operation> {
    if (typeof name !== 'string' || !/^operations\/[0-9a-f-]{36}$/.test(name)) {
      throw StatusError.invalidArgument(`"${String(name).slice(0, 80)}" is not an operation name.`, [{ field: 'name', description: 'operations/{uuid}' }]);
    }
    const record = await this.dataSource.getRepository(OperationRecord).findOneBy({ name });
    if (!record) throw StatusError.withReason('NOT_FOUND', `Operation "${name}" not found.`, 'NOT_FOUND', { resource: name });
    return record.operation;
  }

  // ---------------------------------------------------------------- plumbing

  private preview(request: PreviewRequest, verb: string, decide: (s: ExperimentState, c: Clock) => ReturnType<typeof decideStartPreview>) {
    const { name } = parseExperimentName(request.name);
    return this.operation(request, verb, name, async (tx) => {
      const experiment = await loadExperiment(tx, name);
      return experimentView(await this.appendExperiment(tx, experiment, decide(experiment, this.clock), request));
    });
  }

  private async history(name: string): Promise<{ events: HistoryEvent[] }> {
    const events = await this.store.readStream(name);
    return {
      events: events.map((e) => ({
        type: e.type,
        time: e.createdAt.toISOString(),
        version: e.version,
        actor: e.metadata.actor,
        ...(e.metadata.requestId ? { requestId: e.metadata.requestId } : {}),
      })),
    };
  }

  /** Runs a command once per request id; a retry gets the first answer. */
  private async command<T>(context: CommandContext, work: (tx: EventTransaction) => Promise<T>): Promise<T> {
    const requestId = checkRequestId(context.requestId);
    const result = await this.store.transaction(async (tx) => {
      const previous = await tx.previousResponse<T>(requestId);
      if (previous !== undefined) return previous;
      const answer = await work(tx);
      await tx.rememberResponse(requestId, answer);
      return answer;
    });
    this.relay.nudge();
    return result;
  }

  /** An experiment mutation: its answer is an Operation (done at once) kept for GET /v1/operations. */
  private operation<T>(context: CommandContext, verb: string, target: string, work: (tx: EventTransaction) => Promise<T>): Promise<Operation<T>> {
    return this.command(context, async (tx) => {
      const response = await work(tx);
      const time = this.clock.now().toISOString();
      const isPolicy = verb === 'commit';
      const operation: Operation<T> = {
        name: `operations/${randomUUID()}`,
        done: true,
        metadata: { '@type': 'type.googleapis.com/policyrollout.experiment.v1.OperationMetadata', verb, target, createTime: time, endTime: time },
        response: {
          '@type': isPolicy
            ? 'type.googleapis.com/policyrollout.experiment.v1.FirewallPolicy'
            : verb === 'delete'
              ? 'type.googleapis.com/google.protobuf.Empty'
              : 'type.googleapis.com/policyrollout.experiment.v1.FirewallPolicyExperiment',
          ...response,
        },
      };
      await tx.manager.getRepository(OperationRecord).insert({ name: operation.name, operation });
      return operation;
    });
  }

  /** Appends one event at a time so each carries the resource after it, for publication. */
  private async appendPolicy(tx: EventTransaction, policy: PolicyState, events: Parameters<typeof evolvePolicy>[1][], context: CommandContext) {
    let after = policy;
    for (const event of events) {
      const next = evolvePolicy(after, event);
      await tx.append(after.name, after.version, [event], { ...metadataOf(context), ...(next.exists ? { state: policyView(next) } : {}) });
      after = next;
    }
    const repository = tx.manager.getRepository(PolicyRecord);
    if (after.exists) {
      const { project, location } = parsePolicyName(after.name);
      await repository.save({ name: after.name, parent: `projects/${project}/locations/${location}`, resource: policyView(after) });
    } else await repository.delete({ name: after.name });
    return after;
  }

  private async appendExperiment(tx: EventTransaction, experiment: ExperimentState, events: Parameters<typeof evolveExperiment>[1][], context: CommandContext) {
    let after = experiment;
    for (const event of events) {
      const next = evolveExperiment(after, event);
      await tx.append(after.name, after.version, [event], { ...metadataOf(context), ...(next.exists ? { state: experimentView(next) } : {}) });
      after = next;
    }
    const repository = tx.manager.getRepository(ExperimentRecord);
    if (after.exists) {
      await repository.save({ name: after.name, policyName: after.policyName!, state: after.preview?.state ?? null, resource: experimentView(after) });
    } else await repository.delete({ name: after.name });
    return after;
  }
}

function checkRequestId(requestId: unknown): string | undefined {
  if (requestId === undefined || requestId === null || requestId === '') return undefined;
  if (typeof requestId !== 'string' || !/^[A-Za-z0-9._:-]{1,128}$/.test(requestId)) {
    throw StatusError.invalidArgument('requestId must be 1-128 characters of [A-Za-z0-9._:-] (a UUID is best).', [
      { field: 'requestId', description: 'invalid' },
    ]);
  }
  return requestId;
}

const metadataOf = (context: CommandContext) => ({ actor: context.actor || 'unknown', ...(context.requestId ? { requestId: context.requestId } : {}) });

/** `experiment.v1.events.policy.{project}.{location}.{policy}` / `…experiment.{…}.{experiment}` */
function eventSubject(event: StoredEvent): string {
  const ids = event.streamId.split('/').filter((_, i) => i % 2 === 1);
  return `experiment.v1.events.${ids.length === 3 ? 'policy' : 'experiment'}.${ids.join('.')}`;
}

/** The published form: the event and the aggregate's state after it (replayed in order). */
function publishedEvent(event: StoredEvent): PolicyEvent | ExperimentEvent {
  return {
    id: event.eventId,
    type: event.type as PolicyEvent['type'],
    subject: event.streamId,
    version: event.version,
    time: event.createdAt.toISOString(),
    actor: event.metadata.actor,
    ...(event.metadata.requestId ? { requestId: event.metadata.requestId } : {}),
    ...(event.metadata.state ? { state: event.metadata.state as FirewallPolicy & FirewallPolicyExperiment } : {}),
  };
}
