import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import {
  BlazarVerdict,
  CreateLeaseRequest,
  DeleteLeaseRequest,
  ENFORCEMENT_DENIED_REASON,
  ENFORCEMENT_FILTER_FAILED_REASON,
  ERROR_DOMAIN,
  EndLeaseRequest,
  GetLeaseRequest,
  LEASE_STATUSES,
  Lease,
  LeaseStatus,
  ListDecisionsRequest,
  ListDecisionsResponse,
  ListLeasesRequest,
  ListLeasesResponse,
  StatusError,
  UpdateLeaseRequest,
} from '@rollout/contracts';
import {
  BlazarLeaseView,
  ChainDecision,
  Clock,
  EnforcementChain,
  EnforcementContext,
  LeaseRequest,
  admittedStatus,
  leaseFromCreate,
  leaseFromUpdate,
  parseBlazarCall,
  updateNeedsChecks,
} from '@rollout/enforcement-domain';
import { randomUUID } from 'node:crypto';
import { CLOCK } from '@rollout/service-kit';
import { Config, ENFORCEMENT_SERVICE_CONFIG } from '../config';
import { Enforcement } from './enforcement';
import { CountingFacts, CountingTx, Ledger, LeaseRow, LedgerTx, NewDecision } from './ledger';
import { OnEndOutbox, QueuedOnEnd } from './on-end-outbox';
import { decodePageToken, encodePageToken, pageSizeOf } from './paging';
import { KeyedQueue } from './project-queue';
import { decisionRecord, decisionView, domainLease, leaseView } from './views';

const PROJECT = /^[A-Za-z0-9][A-Za-z0-9._@:-]{0,127}$/;
/** AIP-122 ids for the leases clients name; the ids the service chooses are UUIDs. */
const LEASE_ID = /^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;
const LOOKUP_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;
const SWEEP_BATCH = 100;
const isLive = (row: LeaseRow) => row.status === 'PENDING' || row.status === 'ACTIVE';

/**
 * The id adapters know a lease by (quota and reports are keyed by it): the ledger's uid for
 * leases of this API; for Blazar's, its name (or id), which every Blazar call carries alike.
 */
function blazarLeaseId(name: string | undefined, id: string | undefined, requestId: string): string {
  return `blazar:${name ?? id ?? requestId}`;
}
function adapterLeaseId(row: LeaseRow): string {
  return row.origin === 'BLAZAR' ? blazarLeaseId(row.blazar_name ?? undefined, row.blazar_id ?? undefined, row.uid) : row.uid;
}

/** The ids filters get for a lease of the ledger: the adapters' key, and the id users see in the API. */
function idsOf(row: LeaseRow): LeaseIds {
  return { leaseId: adapterLeaseId(row), apiLeaseId: row.lease_id };
}
type LeaseIds = Pick<EnforcementContext, 'leaseId' | 'apiLeaseId'>;

/** An update that changes nothing the filters decide on passes without them (see updateNeedsChecks). */
const UNCHECKED_UPDATE: ChainDecision = { hook: 'check_update', allowed: true, exempted: false, steps: [] };

function checkProject(project: unknown): string {
  if (typeof project !== 'string' || !PROJECT.test(project)) {
    throw StatusError.invalidArgument('project must be a project id (letters, digits, . _ @ : -).', [{ field: 'project', description: 'not a project id' }]);
  }
  return project;
}

/** Blazar's project ids are Keystone's: any text, but bounded. */
function blazarProject(context: EnforcementContext): string {
  if (context.projectId.length > 255) throw StatusError.invalidArgument('context.project_id is too long.', [{ field: 'context.project_id', description: 'at most 255 characters' }]);
  return context.projectId;
}

function checkActor(actor: unknown): string {
  if (typeof actor !== 'string' || actor === '' || actor.length > 255) throw StatusError.invalidArgument('actor is required.', [{ field: 'actor', description: 'required' }]);
  return actor;
}

function notFound(project: string, leaseId: unknown): StatusError {
  return StatusError.withReason('NOT_FOUND', `Lease ${String(leaseId)} not found in project ${project}.`, 'LEASE_NOT_FOUND', { project, lease: String(leaseId) });
}

/**
 * A refusal carrying the filter's own message; the ErrorInfo names the filter. A policy denial
 * is PERMISSION_DENIED / ENFORCEMENT_DENIED; a filter that could not decide is
 * ENFORCEMENT_FILTER_FAILED with the filter's status for errors (`status_on_error`).
 */
function denied(decision: ChainDecision, project: string, leaseId: string): StatusError {
  const denial = decision.denial!;
  return new StatusError(denial.failure?.status ?? 'PERMISSION_DENIED', denial.message, [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: denial.failure ? ENFORCEMENT_FILTER_FAILED_REASON : ENFORCEMENT_DENIED_REASON,
      domain: ERROR_DOMAIN,
      metadata: { filter: denial.filter, hook: decision.hook, project, lease: leaseId },
    },
  ]);
}

/**
 * The lease ledger and the enforcement chain over it. Creates of one project are serialised
 * (in this process by a queue, across replicas by a transaction-scoped advisory lock) so that
 * MaxActiveLeases counts exactly; every decision is written in the transaction of the change
 * it decided; on_end goes out once per lease, whoever ends it, after the end is committed.
 */
@Injectable()
export class LeasesApplication implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Leases');
  private readonly projects = new KeyedQueue();
  private sweepTimer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;

  constructor(
    private readonly ledger: Ledger,
    private readonly enforcement: Enforcement,
    private readonly onEnd: OnEndOutbox,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ENFORCEMENT_SERVICE_CONFIG) private readonly config: Config,
  ) {}

  // ------------------------------------------------------------------ the API's leases

  async create(request: CreateLeaseRequest, requestId: string): Promise<Lease> {
    const now = this.clock.now();
    const project = checkProject(request?.project);
    const actor = checkActor(request.actor);
    let leaseId: string;
    if (request.leaseId === undefined || request.leaseId === null || request.leaseId === '') leaseId = randomUUID();
    else if (typeof request.leaseId === 'string' && LEASE_ID.test(request.leaseId)) leaseId = request.leaseId;
    else {
      throw StatusError.invalidArgument('leaseId must match ^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$ (AIP-122).', [
        { field: 'leaseId', description: 'lower-case letters, digits and hyphens, starting with a letter, at most 63' },
      ]);
    }
    const lease = leaseFromCreate(request.lease, leaseId, now);
    const uid = randomUUID();
    const context = this.context(project, actor, requestId, { leaseId: uid, apiLeaseId: leaseId });
    const { row, decision } = await this.admit(project, context, lease, actor, now, { exists: leaseId }, async (tx, facts, decide) => {
      if (facts.taken) {
        throw StatusError.withReason('ALREADY_EXISTS', `Lease ${leaseId} already exists in project ${project}.`, 'LEASE_EXISTS', { project, lease: leaseId });
      }
      const decision = await decide(facts.live);
      const status = decision.allowed ? admittedStatus(lease, now) : 'ERROR';
      const row = this.newRow(uid, project, leaseId, 'API', lease, status, decision.denial?.message ?? null, actor, now);
      const [inserted] = await tx.commitWith([tx.insertLeaseSql(row, this.decisionOf(uid, project, leaseId, decision, now, actor, context))]);
      return { row: inserted.rows[0] as LeaseRow, decision };
    });
    if (!decision.allowed) throw denied(decision, project, leaseId);
    await this.notifyCreated(context, lease);
    return leaseView(row);
  }

  async get(request: GetLeaseRequest): Promise<Lease> {
    return leaseView(await this.find(request));
  }

  async list(request: ListLeasesRequest): Promise<ListLeasesResponse> {
    const project = checkProject(request?.project);
    const statuses = [...new Set(request.statuses ?? [])].sort();
    for (const status of statuses) {
      if (!LEASE_STATUSES.includes(status)) {
        throw StatusError.invalidArgument(`status must be one of ${LEASE_STATUSES.join(', ')}.`, [{ field: 'status', description: `unknown status ${String(status).slice(0, 40)}` }]);
      }
    }
    const size = pageSizeOf(request.pageSize);
    const query = `${project}|${statuses.join(',')}`;
    const rows = await this.ledger.list(project, statuses as LeaseStatus[], decodePageToken(request.pageToken, query), size + 1);
    const page = rows.slice(0, size);
    return {
      leases: page.map(leaseView),
      ...(rows.length > size ? { nextPageToken: encodePageToken(page[page.length - 1].lease_id, query) } : {}),
    };
  }

  /**
   * The fields present replace the lease's; a refusal leaves it exactly as it was. An update
   * that changes neither dates nor reservations runs no filter (Blazar's rule, see
   * updateNeedsChecks) and leaves no decision.
   */
  async update(request: UpdateLeaseRequest, requestId: string): Promise<Lease> {
    const now = this.clock.now();
    const project = checkProject(request?.project);
    const actor = checkActor(request.actor);
    const context = this.context(project, actor, requestId);
    const { row, decision, leaseId, change } = await this.ledger.transaction(async (tx) => {
      const current = await this.lockedLease(tx, project, request.leaseId);
      Object.assign(context, idsOf(current));
      if (!isLive(current) || current.end_date.getTime() <= now.getTime()) {
        const state = isLive(current) ? 'ended' : current.status;
        throw StatusError.withReason('FAILED_PRECONDITION', `Lease ${current.lease_id} is ${state}; only PENDING and ACTIVE leases can be updated.`, 'LEASE_NOT_LIVE', {
          project,
          lease: current.lease_id,
        });
      }
      const before = domainLease(current);
      const next = leaseFromUpdate(request.lease, before, current.start_date.getTime() <= now.getTime(), now);
      const checked = updateNeedsChecks(before, next);
      let decision = UNCHECKED_UPDATE;
      if (checked) {
        const startedAt = process.hrtime.bigint();
        decision = this.enforcement.decided(await this.countingChain(tx, now).checkUpdate(context, before, next), startedAt);
        await tx.insertDecision(this.decisionOf(current.uid, project, current.lease_id, decision, now, actor, context));
        if (!decision.allowed) return { row: current, decision, leaseId: current.lease_id, change: undefined };
      }
      const updated = await tx.changeLease(current.uid, {
        name: next.name,
        start_date: next.startDate,
        end_date: next.endDate,
        reservations: next.reservations,
        status: admittedStatus(next, now),
        status_reason: null,
        update_time: now,
      });
      return { row: updated, decision, leaseId: current.lease_id, change: checked ? { before, next } : undefined };
    });
    if (!decision.allowed) throw denied(decision, project, leaseId);
    if (change) await this.notifyUpdated(context, change.before, change.next);
    return leaseView(row);
  }

  /** TERMINATED now, and on_end (once). Ending an ended lease changes nothing. */
  async end(request: EndLeaseRequest, requestId: string): Promise<Lease> {
    const now = this.clock.now();
    const project = checkProject(request?.project);
    const actor = checkActor(request.actor);
    const { row, queued } = await this.ledger.transaction(async (tx) => {
      const current = await this.lockedLease(tx, project, request.leaseId);
      if (current.status === 'ERROR') {
        throw StatusError.withReason('FAILED_PRECONDITION', `Lease ${current.lease_id} was refused (ERROR) and never started; delete it instead.`, 'LEASE_NOT_LIVE', {
          project,
          lease: current.lease_id,
        });
      }
      if (current.status === 'TERMINATED') return { row: current, queued: undefined };
      const ended = await this.terminate(tx, current, now, `Ended by ${actor}.`);
      return { row: ended, queued: await this.onEnd.queue(tx, ended, this.context(project, actor, requestId, idsOf(ended)), actor, now) };
    });
    await this.onEnd.deliver(queued);
    return leaseView(row);
  }

  /** Deletes the lease; a live one is ended first (on_end). Its decisions stay in the ledger. */
  async delete(request: DeleteLeaseRequest, requestId: string): Promise<Record<string, never>> {
    const now = this.clock.now();
    const project = checkProject(request?.project);
    const actor = checkActor(request.actor);
    const queued = await this.ledger.transaction(async (tx) => {
      const current = await this.lockedLease(tx, project, request.leaseId);
      const ended = isLive(current) ? await this.terminate(tx, current, now, `Deleted by ${actor}.`) : undefined;
      const queued = ended && (await this.onEnd.queue(tx, ended, this.context(project, actor, requestId, idsOf(ended)), actor, now));
      await tx.deleteLease(current.uid);
      return queued;
    });
    await this.onEnd.deliver(queued);
    return {};
  }

  async decisions(request: ListDecisionsRequest): Promise<ListDecisionsResponse> {
    const lease = await this.find(request);
    const size = pageSizeOf(request.pageSize);
    const query = `${lease.uid}`;
    const rows = await this.ledger.decisions(lease.uid, decodePageToken(request.pageToken, query), size + 1);
    const page = rows.slice(0, size);
    return {
      decisions: page.map(decisionView),
      ...(rows.length > size ? { nextPageToken: encodePageToken(page[page.length - 1].id, query) } : {}),
    };
  }

  // ------------------------------------------------------------------ Blazar's external enforcement protocol

  /** Blazar asks before creating a lease; an admitted one is tracked (keyed by its name) and counts. */
  async blazarCheckCreate(payload: unknown, requestId: string): Promise<BlazarVerdict> {
    const now = this.clock.now();
    const { context, lease: view } = parseBlazarCall(payload, false, requestId, this.config.ENFORCEMENT_REGION_NAME);
    const project = blazarProject(context);
    context.leaseId = blazarLeaseId(view.name, view.id, requestId);
    const { decision } = await this.admit(project, context, view.lease, 'blazar', now, { blazar: view }, async (tx, facts, decide) => {
      const tracked = facts.tracked && isLive(facts.tracked) ? facts.tracked : undefined;
      const leaseId = tracked?.lease_id ?? randomUUID();
      context.apiLeaseId = leaseId;
      // Blazar asks again about a lease it already holds (a retry): the new answer replaces the
      // old one, so that lease does not count against itself.
      const decision = await decide(facts.live - (tracked && tracked.end_date.getTime() > now.getTime() ? 1 : 0));
      const status = decision.allowed ? admittedStatus(view.lease, now) : 'ERROR';
      const reason = decision.denial?.message ?? null;
      if (tracked) {
        await tx.commitWith([
          tx.changeLeaseSql(tracked.uid, { ...this.change(view, now), status, status_reason: reason }, this.decisionOf(tracked.uid, project, tracked.lease_id, decision, now, 'blazar', context)),
        ]);
      } else {
        const uid = randomUUID();
        const row = { ...this.newRow(uid, project, leaseId, 'BLAZAR', view.lease, status, reason, context.userId || 'blazar', now), blazar_name: view.name ?? null, blazar_id: view.id ?? null };
        await tx.commitWith([tx.insertLeaseSql(row, this.decisionOf(uid, project, leaseId, decision, now, 'blazar', context))]);
      }
      return { row: undefined, decision };
    });
    if (decision.allowed) await this.notifyCreated(context, view.lease);
    return decision.allowed ? { allowed: true } : { allowed: false, message: decision.denial!.message };
  }

  /**
   * Blazar asks before changing a lease; when allowed, the ledger's copy follows (or starts
   * tracking it). A change of nothing the filters decide on passes without them, as in Blazar.
   */
  async blazarCheckUpdate(payload: unknown, requestId: string): Promise<BlazarVerdict> {
    const now = this.clock.now();
    const call = parseBlazarCall(payload, true, requestId, this.config.ENFORCEMENT_REGION_NAME);
    const { context, lease: view } = call;
    const current = call.current!;
    const project = blazarProject(context);
    context.leaseId = blazarLeaseId(current.name ?? view.name, current.id ?? view.id, requestId);
    const checked = updateNeedsChecks(current.lease, view.lease);
    const decision = await this.projects.run(project, () =>
      this.ledger.counting(project, now, { blazar: { id: current.id ?? view.id, name: current.name ?? view.name } }, async (tx, facts) => {
        const existing = facts.tracked;
        const live = existing && isLive(existing) ? existing : undefined;
        const leaseId = live?.lease_id ?? randomUUID();
        context.apiLeaseId = leaseId;
        let decision = UNCHECKED_UPDATE;
        if (checked) {
          const chain = this.enforcement.chain({ countActive: async () => facts.live });
          decision = this.enforcement.decided(await chain.checkUpdate(context, current.lease, view.lease));
        }
        if (!decision.allowed) {
          const subject = existing ?? { uid: randomUUID(), lease_id: '' };
          await tx.commitWith([tx.insertDecisionSql(this.decisionOf(subject.uid, project, subject.lease_id, decision, now, 'blazar', context))]);
          return decision;
        }
        const status = admittedStatus(view.lease, now);
        if (live) {
          const change = { ...this.change(view, now), status, status_reason: null, blazar_id: view.id ?? current.id ?? null };
          const record = checked ? this.decisionOf(live.uid, project, live.lease_id, decision, now, 'blazar', context) : undefined;
          await tx.commitWith([tx.changeLeaseSql(live.uid, change, record)]);
        } else {
          // A lease this ledger did not hold: from now on it counts.
          const uid = randomUUID();
          const row = {
            ...this.newRow(uid, project, leaseId, 'BLAZAR', view.lease, status, null, context.userId || 'blazar', now),
            blazar_name: view.name ?? current.name ?? null,
            blazar_id: view.id ?? current.id ?? null,
          };
          await tx.commitWith([tx.insertLeaseSql(row, checked ? this.decisionOf(uid, project, leaseId, decision, now, 'blazar', context) : undefined)]);
        }
        return decision;
      }),
    );
    if (decision.allowed && checked) await this.notifyUpdated(context, current.lease, view.lease);
    return decision.allowed ? { allowed: true } : { allowed: false, message: decision.denial!.message };
  }

  /** Blazar says a lease ends: the ledger releases it and on_end goes out, once per lease. */
  async blazarOnEnd(payload: unknown, requestId: string): Promise<BlazarVerdict> {
    const now = this.clock.now();
    const { context, lease: view } = parseBlazarCall(payload, false, requestId, this.config.ENFORCEMENT_REGION_NAME);
    const project = blazarProject(context);
    context.leaseId = blazarLeaseId(view.name, view.id, requestId);
    const queued = await this.ledger.transaction(async (tx) => {
      const row = await this.blazarEnded(tx, project, view, context, now);
      if (!row) return undefined;
      context.apiLeaseId = row.lease_id;
      // Blazar's view of the lease is what its filters hear about, as Blazar sends it.
      return this.onEnd.queue(tx, row, context, 'blazar', now, view.lease);
    });
    await this.onEnd.deliver(queued);
    return { allowed: true };
  }

  /** The ledger's row of a lease Blazar says ended, when its on_end is still to go out (claimed here). */
  private async blazarEnded(tx: LedgerTx, project: string, view: BlazarLeaseView, context: EnforcementContext, now: Date): Promise<LeaseRow | undefined> {
    const existing = await tx.findBlazarForUpdate(project, view);
    if (existing && isLive(existing)) return this.terminate(tx, existing, now, 'Ended by Blazar.');
    if (existing?.status === 'TERMINATED') return (await tx.claimOnEnd(existing.uid)) ? existing : undefined;
    if (existing) return undefined; // refused at creation: it never started, nothing to refund
    // A lease this ledger never saw (admitted before it tracked Blazar, say): remember it ended, so on_end goes out once.
    return tx.insertLease({
      ...this.newRow(randomUUID(), project, randomUUID(), 'BLAZAR', view.lease, 'TERMINATED', 'Ended by Blazar.', context.userId || 'blazar', now),
      blazar_name: view.name ?? null,
      blazar_id: view.id ?? null,
      end_time: now,
      on_end_sent: true,
    });
  }

  // ------------------------------------------------------------------ end dates

  onApplicationBootstrap(): void {
    this.sweepTimer = setInterval(() => {
      if (this.sweeping) return;
      this.sweeping = this.sweep()
        .catch((error) => this.logger.error({ err: error }, 'lease sweep failed; will retry'))
        .finally(() => {
          this.sweeping = undefined;
        });
    }, this.config.ENFORCEMENT_SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.sweepTimer);
    await this.sweeping;
  }

  /** Starts leases whose start came and ends those whose end passed (on_end for each). */
  async sweep(): Promise<void> {
    const now = this.clock.now();
    await this.ledger.activateStarted(now);
    for (;;) {
      const queued = await this.ledger.transaction(async (tx) => {
        const ended = await tx.claimEnded(now, SWEEP_BATCH);
        const queued: Array<QueuedOnEnd | undefined> = [];
        for (const row of ended) {
          const context: EnforcementContext = { userId: row.creator, projectId: row.project, regionName: row.region_name, requestId: `end-date-${row.uid}`, ...idsOf(row) };
          queued.push(await this.onEnd.queue(tx, row, context, 'system', now));
        }
        return queued;
      });
      for (const entry of queued) await this.onEnd.deliver(entry);
      if (queued.length < SWEEP_BATCH) return;
    }
  }

  // ------------------------------------------------------------------ shared steps

  /**
   * A create decision, which counts the project's leases: serialised per project (a queue in
   * this process, the ledger's transaction-scoped lock across replicas), the chain's
   * MaxActiveLeases answered from the count read after the lock, and the outcome written with
   * its decision in the same transaction. If anything fails after the checks passed, on_end
   * goes out so that budget-keeping filters can refund.
   */
  private async admit<T>(
    project: string,
    context: EnforcementContext,
    lease: LeaseRequest,
    actor: string,
    now: Date,
    probe: { exists: string } | { blazar: { id?: string; name?: string } },
    work: (tx: CountingTx, facts: CountingFacts, decide: (live: number) => Promise<ChainDecision>) => Promise<{ row: T; decision: ChainDecision }>,
  ): Promise<{ row: T; decision: ChainDecision }> {
    let admitted = false;
    try {
      return await this.projects.run(project, () =>
        this.ledger.counting(project, now, probe, (tx, facts) =>
          work(tx, facts, async (live) => {
            const startedAt = process.hrtime.bigint();
            const decision = this.enforcement.decided(await this.enforcement.chain({ countActive: async () => live }).checkCreate(context, lease), startedAt);
            admitted = decision.allowed;
            return decision;
          }),
        ),
      );
    } catch (error) {
      if (admitted) {
        this.logger.warn({ err: error, project }, 'create failed after the checks passed; sending on_end');
        await this.notifyAborted(context, lease, actor, now);
      }
      throw error;
    }
  }

  /** A chain whose MaxActiveLeases counts inside `tx` (updates do not count; kept exact all the same). */
  private countingChain(tx: LedgerTx, now: Date): EnforcementChain {
    return this.enforcement.chain({ countActive: (project) => tx.countLive(project, now) });
  }

  /** An admitted create that could not be written: filters give back what they took (no lease, nothing to retry); never throws. */
  private async notifyAborted(context: EnforcementContext, lease: LeaseRequest, actor: string, now: Date): Promise<void> {
    try {
      const decision = this.enforcement.decided(await this.enforcement.onEndChain.abortCreate(context, lease));
      await this.ledger.insertDecision(this.decisionOf(randomUUID(), context.projectId, '', decision, now, actor, context));
    } catch (error) {
      this.logger.error({ err: error, project: context.projectId }, 'recording an aborted create failed');
    }
  }

  /** Filters that follow the lease's life (adapters' reports) hear of a committed create; never throws. */
  private async notifyCreated(context: EnforcementContext, lease: LeaseRequest): Promise<void> {
    try {
      await this.enforcement.onEndChain.notifyCreated(context, lease);
    } catch (error) {
      this.logger.warn({ err: error, project: context.projectId }, 'created notification failed');
    }
  }

  /** Filters that follow the lease's life (adapters' reports, refunds of a shrink) hear of a committed update; never throws. */
  private async notifyUpdated(context: EnforcementContext, before: LeaseRequest, after: LeaseRequest): Promise<void> {
    try {
      await this.enforcement.onEndChain.notifyUpdated(context, before, after);
    } catch (error) {
      this.logger.warn({ err: error, project: context.projectId }, 'updated notification failed');
    }
  }

  private terminate(tx: LedgerTx, row: LeaseRow, now: Date, reason: string): Promise<LeaseRow> {
    // A lease whose end passed before anyone noticed ended at its end date.
    if (row.end_date.getTime() <= now.getTime()) return tx.terminate(row.uid, now, 'The end date passed.', row.end_date);
    return tx.terminate(row.uid, now, reason);
  }

  private async lockedLease(tx: LedgerTx, project: string, leaseId: unknown): Promise<LeaseRow> {
    const row = typeof leaseId === 'string' && LOOKUP_ID.test(leaseId) ? await tx.getForUpdate(project, leaseId) : undefined;
    if (!row) throw notFound(project, leaseId);
    return row;
  }

  private async find(request: { project: string; leaseId: string }): Promise<LeaseRow> {
    const project = checkProject(request?.project);
    const row = typeof request.leaseId === 'string' && LOOKUP_ID.test(request.leaseId) ? await this.ledger.get(project, request.leaseId) : undefined;
    if (!row) throw notFound(project, request.leaseId);
    return row;
  }

  private context(project: string, userId: string, requestId: string, ids: LeaseIds = {}): EnforcementContext {
    return { userId, projectId: project, regionName: this.config.ENFORCEMENT_REGION_NAME, requestId, ...ids };
  }

  private decisionOf(uid: string, project: string, leaseId: string, decision: ChainDecision, now: Date, actor: string, context: EnforcementContext): NewDecision {
    return { leaseUid: uid, project, leaseId, ...decisionRecord(decision), time: now, actor, userId: context.userId, requestId: context.requestId };
  }

  private change(view: BlazarLeaseView, now: Date) {
    return {
      name: view.lease.name,
      start_date: view.lease.startDate,
      end_date: view.lease.endDate,
      reservations: view.lease.reservations,
      update_time: now,
      blazar_name: view.name ?? null,
      blazar_id: view.id ?? null,
    };
  }

  private newRow(uid: string, project: string, leaseId: string, origin: LeaseRow['origin'], lease: LeaseRequest, status: LeaseStatus, reason: string | null, creator: string, now: Date): LeaseRow {
    return {
      uid,
      project,
      lease_id: leaseId,
      origin,
      blazar_name: null,
      blazar_id: null,
      name: lease.name,
      start_date: lease.startDate,
      end_date: lease.endDate,
      reservations: lease.reservations,
      status,
      status_reason: reason,
      creator,
      region_name: this.config.ENFORCEMENT_REGION_NAME,
      create_time: now,
      update_time: now,
      end_time: null,
      on_end_sent: false,
    };
  }
}
