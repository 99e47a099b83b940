import {
  type DecisionStep,
  type LeaseDecision,
  type LeaseStatus,
  StatusError,
} from '@rollout/contracts';
import type { ChainDecision, ChainStep } from './chain-decision';
import { admittedStatus } from './lease';
import type { EnforcementContext, Lease, LeaseRequest } from './model';

export const isLiveStatus = (status: LeaseStatus): boolean =>
  status === 'PENDING' || status === 'ACTIVE';

/** An update that changes nothing the filters decide on passes without them (see updateNeedsChecks). */
export const UNCHECKED_UPDATE: ChainDecision = {
  hook: 'check_update',
  allowed: true,
  exempted: false,
  steps: [],
};

export function decidedStatus(
  decision: ChainDecision,
  lease: LeaseRequest,
  now: Date,
): { status: LeaseStatus; reason: string | null } {
  return decision.allowed
    ? { status: admittedStatus(lease, now), reason: null }
    : { status: 'ERROR', reason: decision.denial?.message ?? null };
}

export function leaseExists(project: string, leaseId: string): StatusError {
  return StatusError.withReason(
    'ALREADY_EXISTS',
    `Lease ${leaseId} already exists in project ${project}.`,
    'LEASE_EXISTS',
    { project, lease: leaseId },
  );
}

interface HeldLease {
  leaseId: string;
  status: LeaseStatus;
  endDate: Date;
}

/** Only a live lease whose end is ahead can be updated; anything else is FAILED_PRECONDITION. */
export function checkUpdatable(project: string, lease: HeldLease, now: Date): void {
  const live = isLiveStatus(lease.status);
  if (live && lease.endDate.getTime() > now.getTime()) return;
  throw StatusError.withReason(
    'FAILED_PRECONDITION',
    `Lease ${lease.leaseId} is ${live ? 'ended' : lease.status}; only PENDING and ACTIVE leases can be updated.`,
    'LEASE_NOT_LIVE',
    { project, lease: lease.leaseId },
  );
}

export function endAction(project: string, lease: HeldLease): 'end' | 'unchanged' {
  if (lease.status === 'ERROR') {
    throw StatusError.withReason(
      'FAILED_PRECONDITION',
      `Lease ${lease.leaseId} was refused (ERROR) and never started; delete it instead.`,
      'LEASE_NOT_LIVE',
      { project, lease: lease.leaseId },
    );
  }
  return lease.status === 'TERMINATED' ? 'unchanged' : 'end';
}

/** How a lease ends now: a lease whose end passed before anyone noticed ended at its end date. */
export function endingOf(
  endDate: Date,
  now: Date,
  reason: string,
): { reason: string; endTime: Date } {
  return endDate.getTime() <= now.getTime()
    ? { reason: 'The end date passed.', endTime: endDate }
    : { reason, endTime: now };
}

/** Blazar asking again about a lease it holds (a retry) gets an answer that replaces the old one, so it does not count against itself. */
export function liveExcludingItself(
  live: number,
  tracked: { endDate: Date } | undefined,
  now: Date,
): number {
  return live - (tracked && tracked.endDate.getTime() > now.getTime() ? 1 : 0);
}

const HOOKS = {
  check_create: 'CHECK_CREATE',
  check_update: 'CHECK_UPDATE',
  on_end: 'ON_END',
} as const;

export function stepRecord(step: ChainStep): DecisionStep {
  return {
    filter: step.filter,
    mode: step.mode === 'dryrun' ? 'DRYRUN' : 'ENFORCE',
    result: step.result.toUpperCase() as DecisionStep['result'],
    ...(step.message !== undefined ? { message: step.message } : {}),
  };
}

export function decisionRecord(decision: ChainDecision) {
  return {
    hook: HOOKS[decision.hook],
    result:
      decision.hook === 'on_end'
        ? ('NOTIFIED' as const)
        : decision.allowed
          ? ('ALLOWED' as const)
          : ('DENIED' as const),
    filter: decision.denial?.filter,
    message: decision.denial?.message,
    exempted: decision.exempted,
    steps: decision.steps.map(stepRecord),
  };
}

/** A decision as the ledger keeps it, about the lease `leaseUid` (`leaseId` in the API). */
export interface DecisionRecord extends Omit<LeaseDecision, 'time'> {
  leaseUid: string;
  project: string;
  leaseId: string;
  time: Date;
}

export interface HookCall {
  actor: string;
  context: EnforcementContext;
  now: Date;
}

type Subject = Pick<Lease, 'uid' | 'project' | 'leaseId'>;

export function recordOf(
  subject: Subject,
  decision: ChainDecision,
  call: HookCall,
): DecisionRecord {
  return {
    leaseUid: subject.uid,
    project: subject.project,
    leaseId: subject.leaseId,
    ...decisionRecord(decision),
    time: call.now,
    actor: call.actor,
    userId: call.context.userId,
    requestId: call.context.requestId,
  };
}
