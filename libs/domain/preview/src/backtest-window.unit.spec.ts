import { StatusError } from '@rollout/contracts';
import { ReplayOutcome, backtestWindow, requestedWindow } from './backtest-window';

const T = (iso: string) => Date.parse(iso);
const outcome = (overrides: Partial<ReplayOutcome>): ReplayOutcome => ({
  requested: {},
  retainedStartMs: T('2025-06-01T00:00:00Z'),
  retainedStartSequence: 1,
  lastSequence: 10,
  replayedStartMs: T('2025-06-01T00:00:00Z'),
  replayedEndMs: T('2025-06-01T01:00:00Z'),
  messagesReplayed: 10,
  eventsReplayed: 12,
  skipped: new Map(),
  ...overrides,
});

describe('requestedWindow', () => {
  it('reads RFC 3339 times and refuses anything else, or an end before the start', () => {
    expect(
      requestedWindow({ startTime: '2025-06-01T00:00:00Z', endTime: '2025-06-01T02:00:00+02:00' }),
    ).toEqual({ startMs: T('2025-06-01T00:00:00Z'), endMs: T('2025-06-01T00:00:00Z') });
    expect(requestedWindow({})).toEqual({ startMs: undefined, endMs: undefined });
    const refusal = (request: { startTime?: string; endTime?: string }) => {
      try {
        requestedWindow(request);
      } catch (error) {
        return [(error as StatusError).status, (error as StatusError).message];
      }
    };
    expect(refusal({ startTime: '2025-06-01' })).toEqual([
      'INVALID_ARGUMENT',
      'startTime is not an RFC 3339 time.',
    ]);
    expect(refusal({ startTime: '2025-06-02T00:00:00Z', endTime: '2025-06-01T00:00:00Z' })).toEqual(
      ['INVALID_ARGUMENT', 'endTime is before startTime.'],
    );
  });
});

describe('backtestWindow', () => {
  it('says what was replayed and, plainly, what TRAFFIC no longer held', () => {
    const window = backtestWindow(
      outcome({
        requested: { startMs: T('2025-05-31T00:00:00Z') },
        retainedStartSequence: 42,
        skipped: new Map([
          ['invalid_event', 1],
          ['bad_json', 2],
        ]),
      }),
    );
    expect(window).toMatchObject({
      requestedStartTime: '2025-05-31T00:00:00.000Z',
      retainedStartSequence: 42,
      startsBeforeRetention: true,
      skippedMessages: 3,
      skipped: [
        { reason: 'bad_json', messages: 2 },
        { reason: 'invalid_event', messages: 1 },
      ],
    });
    expect(window.summary).toBe(
      'Replayed 10 messages (12 events) TRAFFIC stored from 2025-06-01T00:00:00.000Z to 2025-06-01T01:00:00.000Z. ' +
        'The window asked for starts at 2025-05-31T00:00:00.000Z, before the oldest message TRAFFIC still retains (2025-06-01T00:00:00.000Z, sequence 42): earlier traffic is not in this backtest. ' +
        '3 messages could not be decoded or evaluated and are not counted (bad_json 2, invalid_event 1).',
    );
  });

  it('with no start asked, is bounded by retention only when the stream has removed messages', () => {
    expect(backtestWindow(outcome({})).startsBeforeRetention).toBe(false);
    expect(backtestWindow(outcome({ retainedStartSequence: 5 })).summary).toContain(
      'TRAFFIC retains messages only from its oldest (2025-06-01T00:00:00.000Z, sequence 5)',
    );
    expect(
      backtestWindow(
        outcome({ requested: { startMs: T('2025-06-01T00:30:00Z') }, retainedStartSequence: 5 }),
      ).startsBeforeRetention,
    ).toBe(false);
  });

  it('says so when nothing was replayed', () => {
    expect(
      backtestWindow(
        outcome({
          replayedStartMs: undefined,
          replayedEndMs: undefined,
          messagesReplayed: 0,
          eventsReplayed: 0,
        }),
      ).summary,
    ).toBe(
      'TRAFFIC holds no message of this policy in the window asked for: nothing was replayed.',
    );
  });
});
