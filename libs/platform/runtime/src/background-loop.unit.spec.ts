import { BackgroundLoop, BackgroundLoopOptions, Pauses, TurnOutcome } from './background-loop';

/** Pauses that end only when the test says so (or at wakeAll), and tell the test each one the loop takes. */
class SteppedPauses implements Pauses {
  readonly taken: number[] = [];
  private pending: Array<() => void> = [];
  private waiters: Array<(ms: number) => void> = [];

  sleep(ms: number): Promise<void> {
    this.taken.push(ms);
    for (const waiter of this.waiters.splice(0)) waiter(ms);
    return new Promise((resolve) => this.pending.push(resolve));
  }

  wakeAll(): void {
    for (const resolve of this.pending.splice(0)) resolve();
  }

  /** Ends the pause in progress, as its timer would. */
  elapse(): void {
    this.wakeAll();
  }

  /** Resolves with the length of the next pause the loop takes. */
  nextPause(): Promise<number> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function loopWith(
  turn: () => Promise<TurnOutcome | void>,
  options: Partial<BackgroundLoopOptions> = {},
) {
  const pauses = new SteppedPauses();
  const failures: number[] = [];
  const loop = new BackgroundLoop({
    name: 'test loop',
    turn,
    intervalMs: 1_000,
    sleeper: pauses,
    onFailure: (_error, n) => failures.push(n),
    ...options,
  });
  return { loop, pauses, failures };
}

describe('BackgroundLoop', () => {
  it('given a started loop, runs a turn at once, then pauses for the interval before the next', async () => {
    let turns = 0;
    const { loop, pauses } = loopWith(async () => void turns++);
    const paused = pauses.nextPause();
    loop.start();
    expect(await paused).toBe(1_000);
    expect(turns).toBe(1);

    const again = pauses.nextPause();
    pauses.elapse();
    await again;
    expect(turns).toBe(2);
    await loop.stop();
  });

  it('given a periodic job, waits one interval before its first turn', async () => {
    let turns = 0;
    const { loop, pauses } = loopWith(async () => void turns++, { firstTurnAfterInterval: true });
    const paused = pauses.nextPause();
    loop.start();
    expect(await paused).toBe(1_000);
    expect(turns).toBe(0);
    await loop.stop();
    expect(turns).toBe(0);
  });

  it('when woken during its pause, runs the next turn without waiting the pause out', async () => {
    let turns = 0;
    const { loop, pauses } = loopWith(async () => void turns++);
    const paused = pauses.nextPause();
    loop.start();
    await paused;

    const next = pauses.nextPause();
    loop.wake();
    await next;
    expect(turns).toBe(2);
    expect(pauses.taken).toEqual([1_000, 1_000]);
    await loop.stop();
  });

  it('when woken with a wake delay, shortens the pause to that delay; a wake during a turn makes the next pause that short', async () => {
    const secondTurnStarted = deferred();
    const secondTurn = deferred();
    let turns = 0;
    const { loop, pauses } = loopWith(
      async () => {
        turns++;
        if (turns !== 2) return;
        secondTurnStarted.resolve();
        await secondTurn.promise;
      },
      { wakeDelayMs: 25 },
    );
    let paused = pauses.nextPause();
    loop.start();
    await paused;

    paused = pauses.nextPause();
    loop.wake();
    expect(await paused).toBe(25);
    pauses.elapse();
    await secondTurnStarted.promise;
    paused = pauses.nextPause();
    loop.wake();
    secondTurn.resolve();
    expect(await paused).toBe(25);
    expect(pauses.taken).toEqual([1_000, 25, 25]);
    await loop.stop();
  });

  it('given a turn that leaves more work, runs the next turn at once', async () => {
    const outcomes: TurnOutcome[] = ['more', 'more', 'idle'];
    let turns = 0;
    const { loop, pauses } = loopWith(async () => outcomes[turns++]);
    const paused = pauses.nextPause();
    loop.start();
    await paused;
    expect(turns).toBe(3);
    expect(pauses.taken).toEqual([1_000]);
    await loop.stop();
  });

  it('given a turn that finished the work for good, runs no other turn, and still drains at stop', async () => {
    let turns = 0;
    let drained = false;
    const { loop, pauses } = loopWith(async () => (++turns === 2 ? 'done' : 'idle'), {
      drain: async () => void (drained = true),
    });
    const paused = pauses.nextPause();
    loop.start();
    await paused;
    pauses.elapse();
    await new Promise((resolve) => setImmediate(resolve));
    expect(turns).toBe(2);
    expect(pauses.taken).toEqual([1_000]);
    await loop.stop();
    expect(drained).toBe(true);
  });

  it('given failing turns, backs off longer after each failure in a row, and goes back to its interval once a turn succeeds', async () => {
    let turns = 0;
    const { loop, pauses, failures } = loopWith(
      async () => {
        turns++;
        if (turns <= 3) throw new Error('store down');
      },
      { failureDelayMs: 100, maxFailureDelayMs: 300 },
    );
    let paused = pauses.nextPause();
    loop.start();
    await paused;
    for (let i = 0; i < 3; i++) {
      paused = pauses.nextPause();
      pauses.elapse();
      await paused;
    }
    expect(pauses.taken).toEqual([100, 200, 300, 1_000]);
    expect(failures).toEqual([1, 2, 3]);
    expect(turns).toBe(4);
    await loop.stop();
  });

  it('when stopped during a turn, waits for that turn, runs no other, then drains', async () => {
    const started = deferred();
    const turn = deferred();
    const events: string[] = [];
    const { loop } = loopWith(
      async () => {
        events.push('turn');
        started.resolve();
        await turn.promise;
        events.push('turn done');
      },
      {
        drain: async () => void events.push('drained'),
        interrupt: () => events.push('interrupted'),
      },
    );
    loop.start();
    await started.promise;
    const stopped = loop.stop().then(() => events.push('stopped'));
    expect(loop.isRunning).toBe(false);
    await Promise.resolve();
    expect(events).toEqual(['turn', 'interrupted']);

    turn.resolve();
    await stopped;
    expect(events).toEqual(['turn', 'interrupted', 'turn done', 'drained', 'stopped']);
  });

  it('when stopped during a long pause, stops at once instead of sleeping it out', async () => {
    let turns = 0;
    // The real sleeper: an hour-long pause that stop() did not end would time the test out.
    const loop = new BackgroundLoop({
      name: 'test loop',
      turn: async () => void turns++,
      intervalMs: 3_600_000,
    });
    loop.start();
    await new Promise((resolve) => setImmediate(resolve));
    await loop.stop();
    expect(turns).toBe(1);
  });

  it('given a start that waits for readiness, runs no turn before it and none at all when stopped first', async () => {
    const ready = deferred();
    let turns = 0;
    const { loop, pauses } = loopWith(async () => void turns++);
    loop.start(ready.promise);
    await Promise.resolve();
    expect(turns).toBe(0);
    await loop.stop();
    ready.resolve();
    await Promise.resolve();
    expect(turns).toBe(0);
    expect(pauses.taken).toEqual([]);
  });

  it('given a stopped loop, starts no more: stop is final', async () => {
    let turns = 0;
    const { loop } = loopWith(async () => void turns++);
    await loop.stop();
    loop.start();
    await Promise.resolve();
    expect(turns).toBe(0);
    expect(loop.isRunning).toBe(false);
  });
});
