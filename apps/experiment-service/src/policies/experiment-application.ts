import { Inject, Injectable } from '@nestjs/common';
import {
  CommandContext,
  CommitRequest,
  ExperimentAnalysis,
  CreateExperimentRequest,
  CreatePolicyRequest,
  DeleteRequest,
  FirewallPolicy,
  FirewallPolicyExperiment,
  GetRequest,
  HistoryEvent,
  ListExperimentsResponse,
  ListPoliciesResponse,
  ListRequest,
  Operation,
  PreviewRequest,
  StatusError,
  UpdateExperimentRequest,
  UpdatePolicyRequest,
} from '@rollout/contracts';
import { EventStore, EventTransaction, StateCache } from '@rollout/event-store';
import { analyzeExperiment } from '@rollout/firewall';
import {
  Clock,
  ExperimentState,
  PolicyState,
  ExperimentCommand,
  checkId,
  decideCommitExperiment,
  decideExperiment,
  decidePolicy,
  evolveExperiment,
  evolvePolicy,
  experimentView,
  parseExperimentName,
  parseParent,
  parsePolicyName,
  policyView,
} from '@rollout/experiment-domain';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CLOCK } from '@rollout/service-kit';
import { EventRelays } from '../relays/event-relays';
import { ExperimentRecord, OperationRecord, PolicyRecord } from '../read-models/records';
import { decodePageToken, encodePageToken, pageSizeOf } from '../read-models/paging';
import { parseExperimentFilter } from '../read-models/filter';
import { loadExperiment, loadPolicy } from './aggregates';

/**
 * How much of the experiments' last known states to keep, counted as the length of their JSON
 * (a state takes about two to four times that in memory). An experiment of a few rules is
 * under 1 KB, so thousands fit; one of 1,000 rules can pass 100 KB.
 */
const EXPERIMENT_STATES_CACHED_JSON_LENGTH = 16 * 1024 * 1024;

/**
 * The experiment-service's use cases. A command on one experiment is one statement (see
 * experimentCommand); every other command runs in one Postgres transaction: replay the
 * aggregate(s), decide, append with compare-and-set, update the read models, remember the
 * answer under the request id. The event relays then publish the events (see EventRelays).
 */
@Injectable()
export class ExperimentApplication {
  private readonly store: EventStore;
  /** Experiments' last known states, for commands that decide without reading first (see experimentCommand). */
  private readonly experiments = new StateCache<ExperimentState>(EXPERIMENT_STATES_CACHED_JSON_LENGTH);

  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly relays: EventRelays,
  ) {
    this.store = new EventStore(dataSource);
  }

  // ---------------------------------------------------------------- live policies

  createPolicy(request: CreatePolicyRequest): Promise<FirewallPolicy> {
    const { project, location } = parseParent(request.parent);
    const id = checkId('firewallPolicyId', request.firewallPolicyId);
    const name = `projects/${project}/locations/${location}/firewallPolicies/${id}`;
    return this.command(request, async (tx) => {
      const policy = await loadPolicy(tx, name);
      const after = await this.appendPolicy(tx, policy, decidePolicy({ type: 'CreatePolicy', data: { firewallPolicy: request.firewallPolicy } }, policy, this.clock), request);
      return policyView(after);
    });
  }

  updatePolicy(request: UpdatePolicyRequest): Promise<FirewallPolicy> {
    const { name } = parsePolicyName(request.firewallPolicy?.name, 'firewallPolicy.name');
    return this.command(request, async (tx) => {
      const policy = await loadPolicy(tx, name);
      const events = decidePolicy({ type: 'UpdatePolicy', data: { firewallPolicy: request.firewallPolicy, updateMask: request.updateMask } }, policy, this.clock);
      return policyView(await this.appendPolicy(tx, policy, events, request));
    });
  }

  /** Deleting a live policy deletes its experiments with it, in the same transaction. */
  deletePolicy(request: DeleteRequest): Promise<Record<string, never>> {
    const { name } = parsePolicyName(request.name);
    return this.command(request, async (tx) => {
      // Serialised with experiment creation, so no experiment is created under a deleted policy.
      await tx.manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [name]);
      const policy = await loadPolicy(tx, name);
      const events = decidePolicy({ type: 'DeletePolicy', data: { etag: request.etag } }, policy, this.clock);
      // Every stream is read before the first append (see EventTransaction.append).
      const records: { name: string }[] = await tx.manager.query(`SELECT name FROM experiments WHERE policy_name = $1`, [name]);
      const experiments = await Promise.all(records.map((record) => loadExperiment(tx, record.name)));
      for (const experiment of experiments) {
        await this.appendExperiment(tx, experiment, decideExperiment({ type: 'DeleteExperiment', data: {} }, experiment, this.clock), request);
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
      const events = decideExperiment({ type: 'CreateExperiment', data: { experiment: request.experiment, policy, experimentsOfPolicy: count } }, experiment, this.clock);
      const view = experimentView(await this.appendExperiment(tx, experiment, events, request));
      const analysis = analyze(policyView(policy), view);
      await tx.manager.query(`UPDATE experiments SET analysis = $2 WHERE name = $1`, [name, JSON.stringify(analysis)]);
      return { ...view, analysis };
    });
  }

  updateExperiment(request: UpdateExperimentRequest): Promise<Operation<FirewallPolicyExperiment>> {
    const { name } = parseExperimentName(request.experiment?.name, 'experiment.name');
    return this.experimentCommand(request, 'update', name, {
      type: 'UpdateExperiment',
      data: { experiment: request.experiment, updateMask: request.updateMask },
    }) as Promise<Operation<FirewallPolicyExperiment>>;
  }

  deleteExperiment(request: DeleteRequest): Promise<Operation<Record<string, never>>> {
    const { name } = parseExperimentName(request.name);
    return this.experimentCommand(request, 'delete', name, { type: 'DeleteExperiment', data: { etag: request.etag } }) as Promise<Operation<Record<string, never>>>;
  }

  startPreview(request: PreviewRequest): Promise<Operation<FirewallPolicyExperiment>> {
    return this.preview(request, 'startPreview', { type: 'StartPreview', data: { etag: request.etag, reason: request.reason } });
  }

  stopPreview(request: PreviewRequest): Promise<Operation<FirewallPolicyExperiment>> {
    return this.preview(request, 'stopPreview', { type: 'StopPreview', data: { etag: request.etag, reason: request.reason } });
  }

  /** Atomically: the live policy takes the experiment's policy, and the experiment is gone. */
  commit(request: CommitRequest): Promise<Operation<FirewallPolicy>> {
    const { name, policyName } = parseExperimentName(request.name);
    // `parentEtag` is the deprecated name of `livePolicyEtag` (experiment.v1 1.1.0): both mean the same.
    if (request.livePolicyEtag !== undefined && request.parentEtag !== undefined && request.livePolicyEtag !== request.parentEtag) {
      throw StatusError.invalidArgument('livePolicyEtag and its deprecated name parentEtag differ: send livePolicyEtag only.', [
        { field: 'parentEtag', description: 'deprecated: use livePolicyEtag' },
      ]);
    }
    const livePolicyEtag = request.livePolicyEtag ?? request.parentEtag;
    return this.operation(request, 'commit', name, async (tx) => {
      const experiment = await loadExperiment(tx, name);
      const policy = await loadPolicy(tx, policyName);
      const decision = decideCommitExperiment({ type: 'CommitExperiment', data: { etag: request.etag, livePolicyEtag } }, { experiment, policy }, this.clock);
      await this.appendExperiment(tx, experiment, decision.experiment, request);
      return policyView(await this.appendPolicy(tx, policy, decision.policy, request));
    });
  }

  async getExperiment({ name }: GetRequest): Promise<FirewallPolicyExperiment> {
    parseExperimentName(name);
    const record = await this.dataSource.getRepository(ExperimentRecord).findOneBy({ name });
    if (!record) throw StatusError.withReason('NOT_FOUND', `Experiment "${name}" not found.`, 'NOT_FOUND', { resource: name });
    return withAnalysis(record);
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
    const rows: { resource: FirewallPolicyExperiment; analysis: ExperimentAnalysis | null }[] = await this.dataSource.query(
      `SELECT resource, analysis FROM experiments WHERE policy_name = $1 AND name > $2 ${where.map((w) => `AND ${w}`).join(' ')}
       ORDER BY name LIMIT $3`,
      params,
    );
    const page = rows.slice(0, size).map(withAnalysis);
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

  private preview(request: PreviewRequest, verb: string, command: ExperimentCommand) {
    const { name } = parseExperimentName(request.name);
    return this.experimentCommand(request, verb, name, command) as Promise<Operation<FirewallPolicyExperiment>>;
  }

  /**
   * A command on one experiment. It first decides on the state this replica last saw of the
   * experiment, without reading its stream: one statement appends with compare-and-set at that
   * state's version and, only if that wins, moves the projection and stores the Operation (and
   * the answer under the request id). If that state was stale (another replica, a cascade or a
   * commit moved the stream), or the decision failed or changed nothing, the command runs
   * again on the stream as read from the store, and that run answers. A lost race there is
   * ABORTED. A retried request id needs no look-up first: its append would break the request
   * id's unique key, a failed decision looks the id up before answering, and a decision that
   * changes nothing answers through `operation`, which looks it up too.
   */
  private async experimentCommand(context: CommandContext, verb: string, name: string, command: ExperimentCommand): Promise<Operation> {
    const requestId = checkRequestId(context.requestId);
    const known = this.experiments.get(name);
    if (known) {
      const operation = await this.decideAndAppend(context, requestId, verb, known, command).catch(() => undefined);
      if (operation) return operation;
    }
    // Whatever was held is stale or useless now; a successful append below holds the new state.
    this.experiments.forget(name);
    try {
      const experiment = await loadExperiment(this.store, name);
      const operation = await this.decideAndAppend(context, requestId, verb, experiment, command);
      // Nothing changes (e.g. startPreview of an ACTIVE experiment): answer with the experiment as it is.
      return operation ?? (await this.operation(context, verb, name, async (tx) => experimentView(await loadExperiment(tx, name))));
    } catch (error) {
      const original = await this.store.previousResponse<Operation>(requestId);
      if (original !== undefined) return original;
      throw error;
    }
  }

  /** Decides on `experiment` and appends the events with compare-and-set; undefined when nothing changes. */
  private async decideAndAppend(
    context: CommandContext,
    requestId: string | undefined,
    verb: string,
    experiment: ExperimentState,
    command: ExperimentCommand,
  ): Promise<Operation | undefined> {
    const { name } = experiment;
    const events = decideExperiment(command, experiment, this.clock);
    if (events.length === 0) return undefined;
    let after = experiment;
    const stored = events.map((event) => {
      after = evolveExperiment(after, event);
      return { ...event, metadata: { ...metadataOf(context), ...(after.exists ? { state: experimentView(after) } : {}) } };
    });
    const view = after.exists ? experimentView(after) : undefined;
    const viewJson = view && JSON.stringify(view);
    // Only an update changes the rules, so only it analyses them again; other commands keep the stored analysis.
    const analysis = view && command.type === 'UpdateExperiment' ? analyze(await this.livePolicy(parseExperimentName(name).policyName), view) : undefined;
    const operation = this.operationOf(verb, name, view ? { ...view, ...(analysis ? { analysis } : {}) } : {});
    const writes: ((param: (value: unknown) => string) => string)[] = [
      viewJson
        ? (p) => `INSERT INTO experiments (name, policy_name, state, resource${analysis ? ', analysis' : ''})
                  SELECT ${p(name)}, ${p(after.policyName)}, ${p(after.preview?.state ?? null)}::text, ${p(viewJson)}::jsonb${analysis ? `, ${p(JSON.stringify(analysis))}::jsonb` : ''} FROM claimed
                  ON CONFLICT (name) DO UPDATE SET state = EXCLUDED.state, resource = EXCLUDED.resource${analysis ? ', analysis = EXCLUDED.analysis' : ''}`
        : (p) => `DELETE FROM experiments WHERE name = ${p(name)} AND EXISTS (SELECT 1 FROM claimed)`,
      (p) => `INSERT INTO operations (name, operation) SELECT ${p(operation.name)}, ${p(JSON.stringify(operation))}::jsonb FROM claimed`,
    ];
    if (requestId) {
      writes.push((p) => `INSERT INTO idempotent_requests (request_id, response) SELECT ${p(requestId)}, ${p(JSON.stringify(operation))}::jsonb FROM claimed`);
    }
    await this.store.appendAtomically(name, experiment.version, stored, writes);
    if (viewJson) this.experiments.remember(name, after, viewJson.length);
    else this.experiments.forget(name);
    this.relays.nudge();
    return operation;
  }

  /** The live policy an experiment is analysed against, as its projection holds it now. */
  private async livePolicy(name: string): Promise<FirewallPolicy> {
    const record = await this.dataSource.getRepository(PolicyRecord).findOneBy({ name });
    if (!record) throw StatusError.withReason('NOT_FOUND', `Firewall policy "${name}" not found.`, 'NOT_FOUND', { resource: name });
    return record.resource;
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
        ...reasonOf(e.data),
      })),
    };
  }

  /** Runs a command once per request id; a retry gets the first answer. */
  private async command<T>(context: CommandContext, work: (tx: EventTransaction) => Promise<T>): Promise<T> {
    const requestId = checkRequestId(context.requestId);
    const result = await this.store.transaction(async (tx) => {
      // A retry racing its original waits for it here, then finds its answer.
      if (requestId) await tx.manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`request:${requestId}`]);
      const previous = await tx.previousResponse<T>(requestId);
      if (previous !== undefined) return previous;
      const answer = await work(tx);
      await tx.rememberResponse(requestId, answer);
      return answer;
    });
    this.relays.nudge();
    return result;
  }

  /** An experiment mutation: its answer is an Operation (done at once) kept for GET /v1/operations. */
  private operation<T>(context: CommandContext, verb: string, target: string, work: (tx: EventTransaction) => Promise<T>): Promise<Operation<T>> {
    return this.command(context, async (tx) => {
      const operation = this.operationOf(verb, target, await work(tx));
      await tx.manager.query(`INSERT INTO operations (name, operation) VALUES ($1, $2)`, [operation.name, JSON.stringify(operation)]);
      return operation;
    });
  }

  private operationOf<T>(verb: string, target: string, response: T): Operation<T> {
    const time = this.clock.now().toISOString();
    return {
      name: `operations/${randomUUID()}`,
      done: true,
      metadata: { '@type': 'type.googleapis.com/policyrollout.experiment.v1.OperationMetadata', verb, target, createTime: time, endTime: time },
      response: {
        '@type':
          verb === 'commit'
            ? 'type.googleapis.com/policyrollout.experiment.v1.FirewallPolicy'
            : verb === 'delete'
              ? 'type.googleapis.com/google.protobuf.Empty'
              : 'type.googleapis.com/policyrollout.experiment.v1.FirewallPolicyExperiment',
        ...response,
      },
    };
  }

  /** Appends one event at a time so each carries the resource after it, for publication. */
  private async appendPolicy(tx: EventTransaction, policy: PolicyState, events: Parameters<typeof evolvePolicy>[1][], context: CommandContext) {
    let after = policy;
    for (const event of events) {
      const next = evolvePolicy(after, event);
      await tx.append(after.name, after.version, [event], { ...metadataOf(context), ...(next.exists ? { state: policyView(next) } : {}) });
      after = next;
    }
    // The projection moves in the same transaction, so reads see a done operation at once.
    if (after.exists) {
      const { project, location } = parsePolicyName(after.name);
      await tx.manager.query(
        `INSERT INTO policies (name, parent, resource) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET resource = EXCLUDED.resource`,
        [after.name, `projects/${project}/locations/${location}`, JSON.stringify(policyView(after))],
      );
    } else await tx.manager.query(`DELETE FROM policies WHERE name = $1`, [after.name]);
    return after;
  }

  private async appendExperiment(tx: EventTransaction, experiment: ExperimentState, events: Parameters<typeof evolveExperiment>[1][], context: CommandContext) {
    let after = experiment;
    for (const event of events) {
      const next = evolveExperiment(after, event);
      await tx.append(after.name, after.version, [event], { ...metadataOf(context), ...(next.exists ? { state: experimentView(next) } : {}) });
      after = next;
    }
    if (after.exists) {
      await tx.manager.query(
        `INSERT INTO experiments (name, policy_name, state, resource) VALUES ($1, $2, $3, $4)
         ON CONFLICT (name) DO UPDATE SET state = EXCLUDED.state, resource = EXCLUDED.resource`,
        [after.name, after.policyName, after.preview?.state ?? null, JSON.stringify(experimentView(after))],
      );
    } else await tx.manager.query(`DELETE FROM experiments WHERE name = $1`, [after.name]);
    return after;
  }
}

/** The experiment compared with the live policy (see analyzeExperiment). */
function analyze(live: FirewallPolicy, experiment: FirewallPolicyExperiment): ExperimentAnalysis {
  return analyzeExperiment(live, experiment.firewallPolicy, live.etag);
}

/** The experiment as clients read it: its projection, with the analysis stored beside it. */
function withAnalysis(record: { resource: FirewallPolicyExperiment; analysis: ExperimentAnalysis | null }): FirewallPolicyExperiment {
  return record.analysis ? { ...record.resource, analysis: record.analysis } : record.resource;
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

/** The reason a command gave, recorded in its event's data (PreviewStarted, PreviewStopped). */
const reasonOf = (data: unknown): { reason?: string } => {
  const reason = (data as { reason?: unknown } | null)?.reason;
  return typeof reason === 'string' ? { reason } : {};
};

const metadataOf = (context: CommandContext) => ({ actor: context.actor || 'unknown', ...(context.requestId ? { requestId: context.requestId } : {}) });
