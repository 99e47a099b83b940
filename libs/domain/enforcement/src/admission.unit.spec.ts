import { StatusError } from '@rollout/contracts';
import {
  UNCHECKED_UPDATE,
  checkUpdatable,
  decidedStatus,
  decisionRecord,
  endAction,
  endingOf,
  isLiveStatus,
  leaseExists,
  liveExcludingItself,
} from './admission';
import type { ChainDecision } from './chain-decision';
import type { LeaseRequest } from './model';

const now = new Date('2026-12-01T12:00:00Z');
const hours = (h: number) => new Date(now.getTime() + h * 3_600_000);
const lease: LeaseRequest = {
  name: 'l1',
  startDate: hours(1),
  endDate: hours(3),
  reservations: [{ resourceType: 'physical:host', min: 1, max: 1 }],
};
const denied: ChainDecision = {
  hook: 'check_create',
  allowed: false,
  exempted: false,
  denial: { filter: 'MaxLeaseDuration', message: 'Too long.' },
  steps: [{ filter: 'MaxLeaseDuration', mode: 'enforce', result: 'deny', message: 'Too long.' }],
};
const allowed: ChainDecision = { hook: 'check_create', allowed: true, exempted: false, steps: [] };

function refusal(run: () => unknown): StatusError {
  try {
    run();
  } catch (error) {
    if (error instanceof StatusError) return error;
    throw error;
  }
  throw new Error('no refusal');
}

describe('admission rules', () => {
  it('counts PENDING and ACTIVE leases as live, nothing else', () => {
    expect(
      ['PENDING', 'ACTIVE', 'ERROR', 'TERMINATED'].map((s) => isLiveStatus(s as never)),
    ).toEqual([true, true, false, false]);
  });

  it('admits an allowed lease by its start, keeps a denied one as ERROR with the reason', () => {
    expect(decidedStatus(allowed, lease, now)).toEqual({ status: 'PENDING', reason: null });
    expect(decidedStatus(allowed, { ...lease, startDate: now }, now)).toEqual({
      status: 'ACTIVE',
      reason: null,
    });
    expect(decidedStatus(denied, lease, now)).toEqual({ status: 'ERROR', reason: 'Too long.' });
  });

  it('refuses a taken lease id as ALREADY_EXISTS naming the lease', () => {
    expect(leaseExists('acme', 'gpu-week').toStatus()).toMatchObject({
      code: 409,
      status: 'ALREADY_EXISTS',
      message: 'Lease gpu-week already exists in project acme.',
      details: [{ reason: 'LEASE_EXISTS', metadata: { project: 'acme', lease: 'gpu-week' } }],
    });
  });

  it('updates only a live lease whose end is ahead', () => {
    const held = { leaseId: 'l1', status: 'ACTIVE' as const, endDate: hours(1) };
    expect(checkUpdatable('acme', held, now)).toBeUndefined();
    expect(refusal(() => checkUpdatable('acme', { ...held, endDate: now }, now)).message).toBe(
      'Lease l1 is ended; only PENDING and ACTIVE leases can be updated.',
    );
    expect(refusal(() => checkUpdatable('acme', { ...held, status: 'ERROR' }, now)).message).toBe(
      'Lease l1 is ERROR; only PENDING and ACTIVE leases can be updated.',
    );
  });

  it('ends a live lease, leaves an ended one, and refuses a refused one', () => {
    const held = { leaseId: 'l1', status: 'PENDING' as const, endDate: hours(1) };
    expect(endAction('acme', held)).toBe('end');
    expect(endAction('acme', { ...held, status: 'TERMINATED' })).toBe('unchanged');
    expect(refusal(() => endAction('acme', { ...held, status: 'ERROR' })).message).toBe(
      'Lease l1 was refused (ERROR) and never started; delete it instead.',
    );
  });

  it('ends a lease now with the reason, or at its end date when that passed unnoticed', () => {
    expect(endingOf(hours(1), now, 'Ended by alice.')).toEqual({
      reason: 'Ended by alice.',
      endTime: now,
    });
    expect(endingOf(hours(-1), now, 'Ended by alice.')).toEqual({
      reason: 'The end date passed.',
      endTime: hours(-1),
    });
  });

  it('does not count a lease Blazar asks about again against itself, unless it ended', () => {
    expect(liveExcludingItself(3, { endDate: hours(1) }, now)).toBe(2);
    expect(liveExcludingItself(3, { endDate: now }, now)).toBe(3);
    expect(liveExcludingItself(3, undefined, now)).toBe(3);
  });

  it('records a decision with its hook, result, denial and steps in the API shape', () => {
    expect(decisionRecord(denied)).toEqual({
      hook: 'CHECK_CREATE',
      result: 'DENIED',
      filter: 'MaxLeaseDuration',
      message: 'Too long.',
      exempted: false,
      steps: [
        { filter: 'MaxLeaseDuration', mode: 'ENFORCE', result: 'DENY', message: 'Too long.' },
      ],
    });
    expect(decisionRecord(UNCHECKED_UPDATE)).toMatchObject({
      hook: 'CHECK_UPDATE',
      result: 'ALLOWED',
    });
    expect(decisionRecord({ ...allowed, hook: 'on_end' }).result).toBe('NOTIFIED');
  });
});
