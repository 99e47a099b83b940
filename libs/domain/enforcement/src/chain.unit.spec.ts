import { EnforcementChain, ScheduleTimeout } from './chain';
import type { ChainStep } from './chain-decision';
import { EnforcementContext, EnforcementFilter, FilterResult, Hook, LeaseRequest } from './model';

const context: EnforcementContext = {
  userId: 'u1',
  projectId: 'p1',
  regionName: 'RegionOne',
  requestId: 'r1',
};
const lease: LeaseRequest = {
  name: 'l1',
  startDate: new Date('2026-11-22T10:00:00Z'),
  endDate: new Date('2026-11-22T12:00:00Z'),
  reservations: [],
};

/** A scripted filter that records when it was called. */
function scripted(
  name: string,
  result: FilterResult | Error,
  calls: string[],
  onEndError?: Error,
): EnforcementFilter {
  const answer = async (): Promise<FilterResult> => {
    calls.push(name);
    if (result instanceof Error) throw result;
    return result;
  };
  return {
    name,
    checkCreate: answer,
    checkUpdate: answer,
    onEnd: async () => {
      calls.push(`${name}:end`);
      if (onEndError) throw onEndError;
    },
  };
}

describe('the enforcement chain', () => {
  it('runs filters in the configured order and allows when none denies', async () => {
    const calls: string[] = [];
    const chain = new EnforcementChain(
      ['C', 'A', 'B'].map((n) => ({
        filter: scripted(n, undefined, calls),
        mode: 'enforce' as const,
      })),
      [],
    );
    const decision = await chain.checkCreate(context, lease, 0);
    expect(decision.allowed).toBe(true);
    expect(calls).toEqual(['C', 'A', 'B']);
    expect(decision.steps.map((s) => s.result)).toEqual(['allow', 'allow', 'allow']);
  });

  it('stops at the first denial, whose message and filter reach the caller', async () => {
    const calls: string[] = [];
    const chain = new EnforcementChain(
      [
        { filter: scripted('A', undefined, calls), mode: 'enforce' },
        { filter: scripted('B', { message: 'B says no' }, calls), mode: 'enforce' },
        { filter: scripted('C', { message: 'C says no' }, calls), mode: 'enforce' },
      ],
      [],
    );
    const decision = await chain.checkUpdate(context, lease, lease);
    expect(decision.allowed).toBe(false);
    expect(decision.denial).toEqual({ filter: 'B', message: 'B says no' });
    expect(calls).toEqual(['A', 'B']);
  });

  it("keeps a filter's own failure apart from a policy denial: an error step, its words, its status", async () => {
    const calls: string[] = [];
    const failing = {
      message: 'External service answered check-create with HTTP 500.',
      failure: { status: 'UNAVAILABLE' as const },
    };
    const chain = new EnforcementChain(
      [{ filter: scripted('Ext', failing, calls), mode: 'enforce' }],
      [],
    );
    const decision = await chain.checkCreate(context, lease, 0);
    expect(decision.denial).toEqual({
      filter: 'Ext',
      message: failing.message,
      failure: { status: 'UNAVAILABLE' },
    });
    expect(decision.steps).toEqual([
      { filter: 'Ext', mode: 'enforce', result: 'error', message: failing.message },
    ]);
    const dryrun = new EnforcementChain(
      [{ filter: scripted('Ext', failing, calls), mode: 'dryrun' }],
      [],
    );
    expect(await dryrun.checkCreate(context, lease, 0)).toMatchObject({
      allowed: true,
      steps: [{ result: 'would_deny' }],
    });
  });

  it('tells on_end to just the filters named (a retry of those that failed), skipping names no longer configured', async () => {
    const calls: string[] = [];
    const chain = new EnforcementChain(
      ['A', 'B', 'C'].map((n) => ({
        filter: scripted(n, undefined, calls),
        mode: 'enforce' as const,
      })),
      [],
    );
    const decision = await chain.onEnd(context, lease, ['C', 'A', 'Gone']);
    expect(calls).toEqual(['A:end', 'C:end']);
    expect(decision.steps.map((s) => s.filter)).toEqual(['A', 'C']);
  });

  it('lets exempted projects skip every filter, on_end included', async () => {
    const calls: string[] = [];
    const chain = new EnforcementChain(
      [{ filter: scripted('A', { message: 'no' }, calls), mode: 'enforce' }],
      ['p1'],
    );
    expect(await chain.checkCreate(context, lease, 0)).toMatchObject({
      allowed: true,
      exempted: true,
      steps: [],
    });
    expect(await chain.onEnd(context, lease)).toMatchObject({ allowed: true, exempted: true });
    expect(calls).toEqual([]);
    const other = await chain.checkCreate({ ...context, projectId: 'p2' }, lease, 0);
    expect(other.allowed).toBe(false);
  });

  it('in dryrun records a would-deny, lets the request pass and keeps running the chain', async () => {
    const calls: string[] = [];
    const chain = new EnforcementChain(
      [
        { filter: scripted('A', { message: 'A would refuse' }, calls), mode: 'dryrun' },
        { filter: scripted('B', undefined, calls), mode: 'enforce' },
      ],
      [],
    );
    const decision = await chain.checkCreate(context, lease, 0);
    expect(decision.allowed).toBe(true);
    expect(decision.steps).toEqual([
      { filter: 'A', mode: 'dryrun', result: 'would_deny', message: 'A would refuse' },
      { filter: 'B', mode: 'enforce', result: 'allow' },
    ]);
  });

  it('treats a filter that throws as a denial naming the filter, without leaking the error', async () => {
    const calls: string[] = [];
    const chain = new EnforcementChain(
      [
        { filter: scripted('A', new Error('socket hang up'), calls), mode: 'enforce' },
        { filter: scripted('B', undefined, calls), mode: 'enforce' },
      ],
      [],
    );
    const decision = await chain.checkCreate(context, lease, 0);
    expect(decision.allowed).toBe(false);
    expect(decision.denial).toEqual({
      filter: 'A',
      message: 'Enforcement filter A failed.',
      failure: { status: 'PERMISSION_DENIED' },
    });
    expect(decision.steps[0]).toMatchObject({ result: 'error', message: 'socket hang up' });
    expect(calls).toEqual(['A']);
  });

  it('passes fail-open results through as allowed, and counts them', async () => {
    const chain = new EnforcementChain(
      [{ filter: scripted('A', { failOpen: 'timeout' }, []), mode: 'enforce' }],
      [],
    );
    const decision = await chain.checkCreate(context, lease, 0);
    expect(decision.allowed).toBe(true);
    expect(decision.steps).toEqual([
      { filter: 'A', mode: 'enforce', result: 'fail_open', message: 'timeout' },
    ]);
  });

  it('notifies every filter on_end even when some fail, and never blocks', async () => {
    const calls: string[] = [];
    const chain = new EnforcementChain(
      [
        { filter: scripted('A', undefined, calls, new Error('refund failed')), mode: 'enforce' },
        { filter: scripted('B', undefined, calls), mode: 'enforce' },
      ],
      [],
    );
    const decision = await chain.onEnd(context, lease);
    expect(decision.allowed).toBe(true);
    expect(calls).toEqual(['A:end', 'B:end']);
    expect(decision.steps).toEqual([
      { filter: 'A', mode: 'enforce', result: 'error', message: 'refund failed' },
      { filter: 'B', mode: 'enforce', result: 'allow' },
    ]);
  });

  it('reports each step to the observer, and an observer that throws changes nothing', async () => {
    const seen: Array<[Hook, ChainStep]> = [];
    const chain = new EnforcementChain(
      [{ filter: scripted('A', { message: 'no' }, []), mode: 'enforce' }],
      [],
      {
        onStep: (hook, step) => {
          seen.push([hook, step]);
          throw new Error('metrics broke');
        },
      },
    );
    const decision = await chain.checkCreate(context, lease, 0);
    expect(decision.denial).toEqual({ filter: 'A', message: 'no' });
    expect(seen).toEqual([
      ['check_create', { filter: 'A', mode: 'enforce', result: 'deny', message: 'no' }],
    ]);
  });

  describe('filters with a timeout (remote filters, e.g. adapters)', () => {
    /** A manual timer: the test decides when time has run out. */
    function manualTimers() {
      const pending: Array<{ ms: number; fire: () => void; cancelled: boolean }> = [];
      const schedule: ScheduleTimeout = (ms, fire) => {
        const timer = { ms, fire, cancelled: false };
        pending.push(timer);
        return () => {
          timer.cancelled = true;
        };
      };
      const expire = () => pending.filter((t) => !t.cancelled).forEach((t) => t.fire());
      return { schedule, pending, expire };
    }
    const hanging = (name: string): EnforcementFilter => {
      const never = () => new Promise<never>(() => undefined);
      return { name, checkCreate: never, checkUpdate: never, onEnd: never };
    };
    const nextTick = () => new Promise((r) => setImmediate(r));

    it('refuses when a closed filter does not answer in time, naming the filter', async () => {
      const timers = manualTimers();
      const chain = new EnforcementChain(
        [{ filter: hanging('Budget'), mode: 'enforce', timeoutMs: 250 }],
        [],
        { schedule: timers.schedule },
      );
      const pending = chain.checkCreate(context, lease, 0);
      await nextTick();
      expect(timers.pending.map((t) => t.ms)).toEqual([250]);
      timers.expire();
      const decision = await pending;
      expect(decision.denial).toEqual({
        filter: 'Budget',
        message: 'Enforcement filter Budget failed.',
        failure: { status: 'PERMISSION_DENIED' },
      });
      expect(decision.steps[0]).toMatchObject({
        result: 'error',
        message: 'Enforcement filter Budget did not answer within 250 ms.',
      });
    });

    it('lets the request pass as fail-open when the failure policy is open, and goes on', async () => {
      const timers = manualTimers();
      const calls: string[] = [];
      const chain = new EnforcementChain(
        [
          { filter: hanging('Budget'), mode: 'enforce', timeoutMs: 250, failurePolicy: 'open' },
          { filter: scripted('B', { message: 'B says no' }, calls), mode: 'enforce' },
        ],
        [],
        { schedule: timers.schedule },
      );
      const pending = chain.checkCreate(context, lease, 0);
      await nextTick();
      timers.expire();
      const decision = await pending;
      expect(decision.steps.map((s) => s.result)).toEqual(['fail_open', 'deny']);
      expect(decision.denial?.filter).toBe('B');
    });

    it('an open filter that throws is fail-open too', async () => {
      const chain = new EnforcementChain(
        [{ filter: scripted('A', new Error('down'), []), mode: 'enforce', failurePolicy: 'open' }],
        [],
      );
      expect((await chain.checkCreate(context, lease, 0)).steps).toEqual([
        { filter: 'A', mode: 'enforce', result: 'fail_open', message: 'down' },
      ]);
    });

    it('cancels the timer when the filter answers in time', async () => {
      const timers = manualTimers();
      const chain = new EnforcementChain(
        [{ filter: scripted('A', undefined, []), mode: 'enforce', timeoutMs: 250 }],
        [],
        { schedule: timers.schedule },
      );
      expect((await chain.checkCreate(context, lease, 0)).allowed).toBe(true);
      expect(timers.pending.every((t) => t.cancelled)).toBe(true);
    });

    it('never lets on_end wait past the timeout, and records it', async () => {
      const timers = manualTimers();
      const calls: string[] = [];
      const chain = new EnforcementChain(
        [
          { filter: hanging('Budget'), mode: 'enforce', timeoutMs: 100 },
          { filter: scripted('B', undefined, calls), mode: 'enforce' },
        ],
        [],
        { schedule: timers.schedule },
      );
      const pending = chain.onEnd(context, lease);
      await nextTick();
      timers.expire();
      const decision = await pending;
      expect(decision.allowed).toBe(true);
      expect(decision.steps.map((s) => s.result)).toEqual(['error', 'allow']);
      expect(calls).toEqual(['B:end']);
    });
  });

  it('counts a filter that throws synchronously as failed, like one that rejects', async () => {
    const broken: EnforcementFilter = {
      name: 'Sync',
      checkCreate: () => {
        throw new Error('boom');
      },
      checkUpdate: async () => undefined,
      onEnd: async () => undefined,
    };
    for (const timeoutMs of [undefined, 100]) {
      const chain = new EnforcementChain([{ filter: broken, mode: 'enforce', timeoutMs }], []);
      expect((await chain.checkCreate(context, lease, 0)).denial).toEqual({
        filter: 'Sync',
        message: 'Enforcement filter Sync failed.',
        failure: { status: 'PERMISSION_DENIED' },
      });
    }
  });
});
