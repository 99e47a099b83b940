import { type LeaseInput, type LeaseOrigin, type LeaseStatus } from '@rollout/contracts';
import {
  type DecisionRecord,
  type HookCall,
  checkUpdatable,
  decidedStatus,
  endAction,
  endingOf,
  isLiveStatus,
  recordOf,
} from './admission';
import { type BlazarLeaseView, parseBlazarCall } from './blazar';
import type { ChainDecision } from './chain-decision';
import { admittedStatus, leaseFromUpdate } from './lease';
import { adapterLeaseId, blazarLeaseId, blazarProject } from './lease-ids';
import type { EnforcementContext, Hook, Lease, LeaseRequest } from './model';
import { updateNeedsChecks } from './update-rule';

/** Pure decisions, one per hook: the service only reads the facts and writes the outcome. */

export type LedgerChange =
  | { kind: 'add'; lease: Lease; decision?: DecisionRecord }
  | { kind: 'save'; lease: Lease; decision?: DecisionRecord }
  | { kind: 'record'; decision: DecisionRecord }
  | { kind: 'remove'; uid: string };

export interface Decided<L extends Lease | undefined = Lease> {
  changes: LedgerChange[];
  lease: L;
  /** The lease this hook ended: its on_end is queued in the same unit of work. */
  ended?: Lease;
}

export interface NewLease {
  uid: string;
  leaseId: string;
  project: string;
  origin: LeaseOrigin;
  creator: string;
  regionName: string;
  blazarName?: string | null;
  blazarId?: string | null;
}

export function newLease(
  ids: NewLease,
  request: LeaseRequest,
  status: LeaseStatus,
  statusReason: string | null,
  now: Date,
): Lease {
  return {
    ...ids,
    blazarName: ids.blazarName ?? null,
    blazarId: ids.blazarId ?? null,
    ...requestOf(request),
    status,
    statusReason,
    createTime: now,
    updateTime: now,
    endTime: null,
    onEndSent: false,
  };
}

/** What the filters see of a lease: never its ids or bookkeeping. */
export function requestOf(lease: LeaseRequest): LeaseRequest {
  const { name, startDate, endDate, reservations } = lease;
  return { name, startDate, endDate, reservations };
}

export function contextOf(
  lease: Lease,
  call: Pick<EnforcementContext, 'userId' | 'regionName' | 'requestId'>,
): EnforcementContext {
  return {
    ...call,
    projectId: lease.project,
    adapterLeaseId: adapterLeaseId(lease),
    apiLeaseId: lease.leaseId,
  };
}

const ending = (kind: 'add' | 'save', lease: Lease): Decided => ({
  changes: [{ kind, lease }],
  lease,
  ended: lease,
});

function endedLease(lease: Lease, reason: string, now: Date): Lease {
  const ending = endingOf(lease.endDate, now, reason);
  return {
    ...lease,
    status: 'TERMINATED',
    statusReason: ending.reason,
    endTime: ending.endTime,
    updateTime: now,
    onEndSent: true,
  };
}

export function decideCreate(
  ids: NewLease,
  request: LeaseRequest,
  decision: ChainDecision,
  call: HookCall,
): Decided {
  const { status, reason } = decidedStatus(decision, request, call.now);
  const lease = newLease(ids, request, status, reason, call.now);
  return {
    changes: [{ kind: 'add', lease, decision: recordOf(lease, decision, call) }],
    lease,
  };
}

export interface ProposedUpdate {
  before: LeaseRequest;
  next: LeaseRequest;
  checked: boolean;
}

export function proposeUpdate(
  current: Lease,
  input: LeaseInput | undefined,
  now: Date,
): ProposedUpdate {
  checkUpdatable(current.project, current, now);
  const before = requestOf(current);
  const started = current.startDate.getTime() <= now.getTime();
  const next = leaseFromUpdate(input, before, started, now);
  return { before, next, checked: updateNeedsChecks(before, next) };
}

export function decideUpdate(
  current: Lease,
  proposed: ProposedUpdate,
  decision: ChainDecision,
  call: HookCall,
): Decided {
  if (!decision.allowed)
    return {
      changes: [{ kind: 'record', decision: recordOf(current, decision, call) }],
      lease: current,
    };
  const lease: Lease = {
    ...current,
    ...proposed.next,
    status: admittedStatus(proposed.next, call.now),
    statusReason: null,
    updateTime: call.now,
  };
  const record = proposed.checked ? recordOf(current, decision, call) : undefined;
  return { changes: [{ kind: 'save', lease, decision: record }], lease };
}

export function decideEnd(current: Lease, reason: string, now: Date): Decided {
  if (endAction(current.project, current) === 'unchanged') return { changes: [], lease: current };
  return ending('save', endedLease(current, reason, now));
}

export function decideDelete(current: Lease, reason: string, now: Date): Decided {
  const ended = isLiveStatus(current.status) ? endedLease(current, reason, now) : undefined;
  return {
    changes: [{ kind: 'remove', uid: current.uid }],
    lease: ended ?? current,
    ended,
  };
}

export interface BlazarHookCall extends HookCall {
  project: string;
  view: BlazarLeaseView;
  current?: BlazarLeaseView;
  /** Blazar's id and name of the lease, as it was before an update: what the ledger finds it by. */
  key: { id?: string; name?: string };
  fresh: { uid: string; leaseId: string };
  regionName: string;
}

export function readBlazarHook(
  payload: unknown,
  hook: Hook,
  requestId: string,
  regionName: string,
  now: Date,
  fresh: BlazarHookCall['fresh'],
): BlazarHookCall {
  const withCurrent = hook === 'check_update';
  const {
    context,
    lease: view,
    current,
  } = parseBlazarCall(payload, withCurrent, requestId, regionName);
  const project = blazarProject(context);
  const key = { id: current?.id ?? view.id, name: current?.name ?? view.name };
  context.adapterLeaseId = blazarLeaseId(key.name, key.id, requestId);
  return { actor: 'blazar', context, now, project, view, current, key, fresh, regionName };
}

export function blazarSubject(
  call: BlazarHookCall,
  tracked: Lease | undefined,
): { live?: Lease; leaseId: string } {
  const live = tracked && isLiveStatus(tracked.status) ? tracked : undefined;
  return { live, leaseId: live?.leaseId ?? call.fresh.leaseId };
}

function followBlazar(lease: Lease, view: BlazarLeaseView, now: Date): Lease {
  return {
    ...lease,
    ...requestOf(view.lease),
    updateTime: now,
    blazarName: view.name ?? lease.blazarName,
    blazarId: view.id ?? lease.blazarId,
  };
}

function newBlazarLease(
  call: BlazarHookCall,
  status: LeaseStatus,
  reason: string | null,
  before?: BlazarLeaseView,
): Lease {
  const { view } = call;
  return newLease(
    {
      ...call.fresh,
      project: call.project,
      origin: 'BLAZAR',
      creator: call.context.userId || 'blazar',
      regionName: call.regionName,
      blazarName: view.name ?? before?.name ?? null,
      blazarId: view.id ?? before?.id ?? null,
    },
    view.lease,
    status,
    reason,
    call.now,
  );
}

export function decideBlazarCreate(
  call: BlazarHookCall,
  live: Lease | undefined,
  decision: ChainDecision,
): Decided {
  const { status, reason } = decidedStatus(decision, call.view.lease, call.now);
  const lease = live
    ? { ...followBlazar(live, call.view, call.now), status, statusReason: reason }
    : newBlazarLease(call, status, reason);
  const record = recordOf(lease, decision, call);
  return { changes: [{ kind: live ? 'save' : 'add', lease, decision: record }], lease };
}

/** A refusal is recorded against the lease (or none) and changes nothing. */
export function decideBlazarUpdate(
  call: BlazarHookCall,
  tracked: Lease | undefined,
  checked: boolean,
  decision: ChainDecision,
): Decided<Lease | undefined> {
  const { live } = blazarSubject(call, tracked);
  const current = call.current!;
  if (!decision.allowed) {
    const subject = tracked ?? { uid: call.fresh.uid, project: call.project, leaseId: '' };
    return {
      changes: [{ kind: 'record', decision: recordOf(subject, decision, call) }],
      lease: tracked,
    };
  }
  const status = admittedStatus(call.view.lease, call.now);
  const lease = live
    ? {
        ...followBlazar(live, call.view, call.now),
        status,
        statusReason: null,
        blazarId: call.view.id ?? current.id ?? live.blazarId,
      }
    : newBlazarLease(call, status, null, current);
  const record = checked ? recordOf(lease, decision, call) : undefined;
  return { changes: [{ kind: live ? 'save' : 'add', lease, decision: record }], lease };
}

/** A lease refused at creation never started; one the ledger never saw is remembered as ended. */
export function decideBlazarEnd(call: BlazarHookCall, existing: Lease | undefined): Decided {
  if (existing && isLiveStatus(existing.status))
    return ending('save', endedLease(existing, 'Ended by Blazar.', call.now));
  if (existing?.status === 'TERMINATED' && !existing.onEndSent)
    return ending('save', { ...existing, onEndSent: true });
  if (existing) return { changes: [], lease: existing };
  return ending('add', {
    ...newBlazarLease(call, 'TERMINATED', 'Ended by Blazar.'),
    endTime: call.now,
    onEndSent: true,
  });
}
