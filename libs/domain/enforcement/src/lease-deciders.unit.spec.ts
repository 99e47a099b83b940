import { StatusError } from '@rollout/contracts';
import {
  type BlazarHookCall,
  type Decided,
  type NewLease,
  decideBlazarCreate,
  decideBlazarEnd,
  decideBlazarUpdate,
  decideCreate,
  decideDelete,
  decideEnd,
  decideUpdate,
  proposeUpdate,
  readBlazarHook,
} from './lease-deciders';
import { type HookCall, recordOf } from './admission';
import type { ChainDecision } from './chain-decision';
import type { Lease, LeaseRequest } from './model';

/** Given the lease the ledger holds (if any), when a hook decides, then these writes follow. */
const now = new Date('2026-12-01T12:00:00Z');
const hours = (h: number) => new Date(now.getTime() + h * 3_600_000);
const request: LeaseRequest = {
  name: 'gpu-week',
  startDate: hours(1),
  endDate: hours(3),
  reservations: [{ resourceType: 'physical:host', min: 1, max: 2 }],
};
const allowed: ChainDecision = { hook: 'check_create', allowed: true, exempted: false, steps: [] };
const denied: ChainDecision = {
  hook: 'check_create',
  allowed: false,
  exempted: false,
  denial: { filter: 'MaxActiveLeases', message: 'Too many.' },
  steps: [{ filter: 'MaxActiveLeases', mode: 'enforce', result: 'deny', message: 'Too many.' }],
};
const call: HookCall = {
  actor: 'alice',
  context: { userId: 'alice', projectId: 'acme', regionName: 'r1', requestId: 'req-1' },
  now,
};
const ids: NewLease = {
  uid: 'uid-1',
  leaseId: 'gpu-week',
  project: 'acme',
  origin: 'API',
  creator: 'alice',
  regionName: 'r1',
};
const held: Lease = {
  ...ids,
  ...request,
  blazarName: null,
  blazarId: null,
  status: 'PENDING',
  statusReason: null,
  createTime: hours(-1),
  updateTime: hours(-1),
  endTime: null,
  onEndSent: false,
};

const given = (lease: Lease | undefined) => ({
  when: (decide: (lease: Lease | undefined) => Decided<Lease | undefined>) => ({
    then: (expected: Decided<Lease | undefined>) => expect(decide(lease)).toEqual(expected),
  }),
});

function refusal(run: () => unknown): StatusError {
  try {
    run();
  } catch (error) {
    if (error instanceof StatusError) return error;
    throw error;
  }
  throw new Error('no refusal');
}

describe('lease deciders', () => {
  describe('create (API)', () => {
    it('adds an admitted lease, PENDING until its start, with its decision', () => {
      const lease = { ...held, createTime: now, updateTime: now };
      given(undefined)
        .when(() => decideCreate(ids, request, allowed, call))
        .then({
          changes: [{ kind: 'add', lease, decision: recordOf(lease, allowed, call) }],
          lease,
        });
    });

    it('keeps a denied lease as ERROR with the denial, and records the refusal', () => {
      const decided = decideCreate(ids, request, denied, call);
      expect(decided.lease).toMatchObject({ status: 'ERROR', statusReason: 'Too many.' });
      expect(decided.changes).toEqual([
        {
          kind: 'add',
          lease: decided.lease,
          decision: expect.objectContaining({
            leaseUid: 'uid-1',
            leaseId: 'gpu-week',
            result: 'DENIED',
            filter: 'MaxActiveLeases',
            actor: 'alice',
            requestId: 'req-1',
          }),
        },
      ]);
    });
  });

  describe('update (API)', () => {
    it('saves the new dates and records the check when they changed', () => {
      const proposed = proposeUpdate(held, { endDate: hours(5).toISOString() }, now);
      expect(proposed.checked).toBe(true);
      const saved = { ...held, endDate: hours(5), updateTime: now };
      given(held)
        .when((current) => decideUpdate(current!, proposed, allowed, call))
        .then({
          changes: [{ kind: 'save', lease: saved, decision: recordOf(held, allowed, call) }],
          lease: saved,
        });
    });

    it('saves a new name with no decision: the filters did not run', () => {
      const proposed = proposeUpdate(held, { name: 'renamed' }, now);
      expect(proposed.checked).toBe(false);
      const decided = decideUpdate(held, proposed, allowed, call);
      expect(decided.changes).toEqual([
        { kind: 'save', lease: { ...held, name: 'renamed', updateTime: now }, decision: undefined },
      ]);
    });

    it('records a refusal and leaves the lease as it was', () => {
      const proposed = proposeUpdate(held, { endDate: hours(5).toISOString() }, now);
      given(held)
        .when((current) => decideUpdate(current!, proposed, denied, call))
        .then({
          changes: [{ kind: 'record', decision: recordOf(held, denied, call) }],
          lease: held,
        });
    });

    it('refuses to update a lease that is not live', () => {
      expect(refusal(() => proposeUpdate({ ...held, status: 'ERROR' }, {}, now)).message).toBe(
        'Lease gpu-week is ERROR; only PENDING and ACTIVE leases can be updated.',
      );
    });
  });

  describe('end and delete (API)', () => {
    const ended: Lease = {
      ...held,
      status: 'TERMINATED',
      statusReason: 'Ended by alice.',
      endTime: now,
      updateTime: now,
      onEndSent: true,
    };

    it('ends a live lease now and claims its on_end', () => {
      given(held)
        .when((current) => decideEnd(current!, 'Ended by alice.', now))
        .then({ changes: [{ kind: 'save', lease: ended }], lease: ended, ended });
    });

    it('ends a lease whose end passed unnoticed at its end date', () => {
      const late = { ...held, endDate: hours(-1) };
      expect(decideEnd(late, 'Ended by alice.', now).ended).toMatchObject({
        statusReason: 'The end date passed.',
        endTime: hours(-1),
      });
    });

    it('changes nothing on a lease that ended already', () => {
      given(ended)
        .when((current) => decideEnd(current!, 'Ended by alice.', now))
        .then({ changes: [], lease: ended });
    });

    it('removes a live lease after ending it (its on_end goes out), a refused one without', () => {
      expect(decideDelete(held, 'Ended by alice.', now)).toEqual({
        changes: [{ kind: 'remove', uid: 'uid-1' }],
        lease: ended,
        ended,
      });
      const refused = { ...held, status: 'ERROR' as const };
      expect(decideDelete(refused, 'Ended by alice.', now)).toEqual({
        changes: [{ kind: 'remove', uid: 'uid-1' }],
        lease: refused,
        ended: undefined,
      });
    });
  });

  describe("Blazar's hooks", () => {
    const payload = (extra: object = {}) => ({
      context: { project_id: 'acme', user_id: 'bob' },
      lease: {
        name: 'bz-1',
        id: 'blazar-id-1',
        start_date: '2026-12-01 13:00',
        end_date: '2026-12-01 15:00',
        reservations: [],
      },
      ...extra,
    });
    const fresh = { uid: 'uid-new', leaseId: 'api-new' };
    const blazarCall = (hook: 'check_create' | 'check_update' | 'on_end', extra?: object) =>
      readBlazarHook(payload(extra), hook, 'req-2', 'r1', now, fresh);
    const tracked: Lease = {
      ...held,
      origin: 'BLAZAR',
      blazarName: 'bz-1',
      blazarId: null,
      creator: 'bob',
    };

    it('share one prelude: the project, the key Blazar names the lease by, its adapter id', () => {
      const read: BlazarHookCall = blazarCall('check_create');
      expect(read).toMatchObject({
        actor: 'blazar',
        project: 'acme',
        key: { id: 'blazar-id-1', name: 'bz-1' },
        context: { projectId: 'acme', userId: 'bob', adapterLeaseId: 'blazar:bz-1' },
      });
    });

    it('check_create starts tracking an admitted lease under fresh ids', () => {
      const decided = decideBlazarCreate(blazarCall('check_create'), undefined, allowed);
      expect(decided.changes).toEqual([
        {
          kind: 'add',
          lease: decided.lease,
          decision: expect.objectContaining({ actor: 'blazar' }),
        },
      ]);
      expect(decided.lease).toMatchObject({
        uid: 'uid-new',
        leaseId: 'api-new',
        origin: 'BLAZAR',
        blazarName: 'bz-1',
        blazarId: 'blazar-id-1',
        creator: 'bob',
        status: 'PENDING',
      });
    });

    it('check_create asked again about a tracked lease replaces its answer', () => {
      const decided = decideBlazarCreate(blazarCall('check_create'), tracked, denied);
      expect(decided.changes).toEqual([
        {
          kind: 'save',
          lease: decided.lease,
          decision: expect.objectContaining({ leaseUid: 'uid-1' }),
        },
      ]);
      expect(decided.lease).toMatchObject({
        uid: 'uid-1',
        status: 'ERROR',
        statusReason: 'Too many.',
        blazarId: 'blazar-id-1',
        startDate: hours(1),
      });
    });

    it('check_update records a refusal against a lease it never held under a fresh uid', () => {
      const update = blazarCall('check_update', { current_lease: payload().lease });
      const decided = decideBlazarUpdate(update, undefined, true, denied);
      expect(decided).toEqual({
        changes: [
          {
            kind: 'record',
            decision: expect.objectContaining({ leaseUid: 'uid-new', leaseId: '' }),
          },
        ],
        lease: undefined,
      });
    });

    it('check_update with nothing checked follows Blazar and records no decision', () => {
      const update = blazarCall('check_update', { current_lease: payload().lease });
      const decided = decideBlazarUpdate(update, tracked, false, allowed);
      expect(decided.changes).toEqual([
        { kind: 'save', lease: decided.lease, decision: undefined },
      ]);
    });

    it('on_end ends a live lease, claims the on_end of an ended one, and remembers one it never saw', () => {
      const end = blazarCall('on_end');
      expect(decideBlazarEnd(end, tracked).ended).toMatchObject({
        uid: 'uid-1',
        status: 'TERMINATED',
        statusReason: 'Ended by Blazar.',
        onEndSent: true,
      });
      const terminated = { ...tracked, status: 'TERMINATED' as const };
      expect(decideBlazarEnd(end, terminated).changes).toEqual([
        { kind: 'save', lease: { ...terminated, onEndSent: true } },
      ]);
      expect(decideBlazarEnd(end, { ...terminated, onEndSent: true }).changes).toEqual([]);
      expect(decideBlazarEnd(end, { ...tracked, status: 'ERROR' }).ended).toBeUndefined();
      expect(decideBlazarEnd(end, undefined).changes).toEqual([
        {
          kind: 'add',
          lease: expect.objectContaining({
            uid: 'uid-new',
            status: 'TERMINATED',
            endTime: now,
            onEndSent: true,
          }),
        },
      ]);
    });
  });
});
