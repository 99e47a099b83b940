import { type BacktestRequest, type BacktestWindow, StatusError } from '@rollout/contracts';

/** Absent: unbounded on that side. */
export interface RequestedWindow {
  startMs?: number;
  endMs?: number;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

export function requestedWindow(
  request: Pick<BacktestRequest, 'startTime' | 'endTime'>,
): RequestedWindow {
  const time = (field: 'startTime' | 'endTime'): number | undefined => {
    const value = request[field];
    if (value === undefined || value === null) return undefined;
    const ms = typeof value === 'string' && RFC3339.test(value) ? Date.parse(value) : Number.NaN;
    if (Number.isNaN(ms))
      throw StatusError.invalidArgument(`${field} is not an RFC 3339 time.`, [
        { field, description: 'e.g. 2025-06-01T00:00:00Z' },
      ]);
    return ms;
  };
  const startMs = time('startTime');
  const endMs = time('endTime');
  if (startMs !== undefined && endMs !== undefined && endMs < startMs) {
    throw StatusError.invalidArgument('endTime is before startTime.', [
      { field: 'endTime', description: 'must not be before startTime' },
    ]);
  }
  return { startMs, endMs };
}

export interface ReplayOutcome {
  requested: RequestedWindow;
  /** Absent when the stream was empty. */
  retainedStartMs?: number;
  retainedStartSequence: number;
  lastSequence: number;
  replayedStartMs?: number;
  replayedEndMs?: number;
  messagesReplayed: number;
  eventsReplayed: number;
  skipped: ReadonlyMap<string, number>;
}

const iso = (ms: number) => new Date(ms).toISOString();
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function backtestWindow(outcome: ReplayOutcome): BacktestWindow {
  const { requested, retainedStartMs } = outcome;
  const skipped = [...outcome.skipped]
    .map(([reason, messages]) => ({ reason, messages }))
    .sort((a, b) => b.messages - a.messages || a.reason.localeCompare(b.reason));
  const skippedMessages = skipped.reduce((sum, s) => sum + s.messages, 0);
  // With no start asked, everything retained is replayed; messages the stream removed before that are the loss.
  const startsBeforeRetention =
    requested.startMs === undefined
      ? outcome.retainedStartSequence > 1
      : retainedStartMs !== undefined && requested.startMs < retainedStartMs;

  const sentences: string[] = [];
  if (outcome.replayedStartMs !== undefined && outcome.replayedEndMs !== undefined) {
    sentences.push(
      `Replayed ${plural(outcome.messagesReplayed, 'message')} (${plural(outcome.eventsReplayed, 'event')}) TRAFFIC stored from ${iso(outcome.replayedStartMs)} to ${iso(outcome.replayedEndMs)}.`,
    );
  } else {
    sentences.push(
      'TRAFFIC holds no message of this policy in the window asked for: nothing was replayed.',
    );
  }
  if (startsBeforeRetention) {
    const oldest =
      retainedStartMs === undefined
        ? 'none'
        : `${iso(retainedStartMs)}, sequence ${outcome.retainedStartSequence}`;
    sentences.push(
      requested.startMs === undefined
        ? `TRAFFIC retains messages only from its oldest (${oldest}): older traffic, removed by its age or size limits, is not in this backtest.`
        : `The window asked for starts at ${iso(requested.startMs)}, before the oldest message TRAFFIC still retains (${oldest}): earlier traffic is not in this backtest.`,
    );
  }
  if (skippedMessages > 0) {
    const reasons = skipped.map((s) => `${s.reason} ${s.messages}`).join(', ');
    sentences.push(
      `${plural(skippedMessages, 'message')} could not be decoded or evaluated and ${skippedMessages === 1 ? 'is' : 'are'} not counted (${reasons}).`,
    );
  }
  return {
    ...(requested.startMs === undefined ? {} : { requestedStartTime: iso(requested.startMs) }),
    ...(requested.endMs === undefined ? {} : { requestedEndTime: iso(requested.endMs) }),
    ...(retainedStartMs === undefined ? {} : { retainedStartTime: iso(retainedStartMs) }),
    retainedStartSequence: outcome.retainedStartSequence,
    lastSequence: outcome.lastSequence,
    ...(outcome.replayedStartMs === undefined
      ? {}
      : { replayedStartTime: iso(outcome.replayedStartMs) }),
    ...(outcome.replayedEndMs === undefined ? {} : { replayedEndTime: iso(outcome.replayedEndMs) }),
    messagesReplayed: outcome.messagesReplayed,
    eventsReplayed: outcome.eventsReplayed,
    skipped,
    skippedMessages,
    startsBeforeRetention,
    summary: sentences.join(' '),
  };
}
