import { CONTRACT_HEADERS, TRAFFIC_STREAM } from '@rollout/contracts';
import { DirectReader, NatsNamespace, StoredEntry } from '@rollout/platform/nats';
import {
  BacktestTally,
  evaluateBatch,
  MESSAGE_ID_HEADER,
  PolicyView,
  ReplayOutcome,
  RequestedWindow,
  TrafficDecoder,
} from '@rollout/domain/preview';
import { NatsConnection } from 'nats';
import { TRAFFIC_DURABLE } from '@rollout/contracts';

export interface ReplayOptions {
  batchSize: number;
  pauseMs: number;
  /** 0-1: the replay's share of the process while the live consumer has a backlog. */
  busyShare: number;
  /** Live messages pending above which the live consumer has a backlog. */
  backlogAbove: number;
  maxFlows: number;
  onProgress: (messages: number, events: number) => Promise<void>;
  stopping: () => boolean;
}

export class ReplayStopped extends Error {}

const READ_LANES = 8;

/**
 * Evaluates a policy's traffic from TRAFFIC as the live path does, against a backtest's view.
 * Direct gets, no consumer (the evaluator's NATS user may create none, docs/bus-security.md),
 * from the window's start found by bisecting sequences, up to the stream's last sequence at start.
 */
export class BacktestReplay {
  private readonly decoder: TrafficDecoder;

  constructor(
    private readonly connection: NatsConnection,
    private readonly namespace: NatsNamespace,
  ) {
    this.decoder = new TrafficDecoder(namespace.subject('traffic.'));
  }

  async run(
    view: PolicyView,
    trafficKey: string,
    window: RequestedWindow,
    options: ReplayOptions,
  ): Promise<{ tally: BacktestTally; outcome: ReplayOutcome }> {
    const stream = this.namespace.stream(TRAFFIC_STREAM);
    const jsm = await this.connection.jetstreamManager();
    const { state } = await jsm.streams.info(stream);
    const tally = new BacktestTally(options.maxFlows);
    const skipped = new Map<string, number>();
    const outcome: ReplayOutcome = {
      requested: window,
      ...(state.messages > 0 ? { retainedStartMs: Date.parse(state.first_ts) } : {}),
      retainedStartSequence: state.first_seq,
      lastSequence: state.last_seq,
      messagesReplayed: 0,
      eventsReplayed: 0,
      skipped,
    };
    // A start after the newest message: JetStream would deliver from the oldest instead.
    if (
      state.messages === 0 ||
      (window.startMs !== undefined && window.startMs > Date.parse(state.last_ts))
    )
      return { tally, outcome };

    const reader = new DirectReader(this.connection, stream);
    const filter = this.namespace.subject(`traffic.*.${trafficKey}`);
    const from =
      window.startMs === undefined
        ? state.first_seq
        : await this.firstStoredFrom(
            reader,
            filter,
            state.first_seq,
            state.last_seq,
            window.startMs,
          );
    // Disjoint ranges of sequences read side by side: a get is a round trip, and several in
    // flight keep the server busy where one would wait on each.
    const span = Math.max(1, Math.ceil((state.last_seq - from + 1) / READ_LANES));
    const lanes = Array.from({ length: READ_LANES }, (_, k) => ({
      next: from + k * span,
      last: Math.min(state.last_seq, from + (k + 1) * span - 1),
      done: false,
    })).filter((lane) => lane.next <= lane.last);
    const readLane = async (lane: (typeof lanes)[number], most: number) => {
      const read: StoredEntry[] = [];
      while (read.length < most) {
        const message = await reader.next(lane.next, filter);
        if (
          !message ||
          message.seq > lane.last ||
          (window.endMs !== undefined && message.storedMs > window.endMs)
        ) {
          lane.done = true;
          break;
        }
        lane.next = message.seq + 1;
        if (window.startMs === undefined || message.storedMs >= window.startMs) read.push(message);
      }
      return read;
    };
    for (;;) {
      const open = lanes.filter((lane) => !lane.done);
      if (open.length === 0) break;
      if (options.stopping()) throw new ReplayStopped();
      const busyFrom = performance.now();
      const most = Math.max(1, Math.ceil(options.batchSize / open.length));
      const inWindow = (await Promise.all(open.map((lane) => readLane(lane, most))))
        .flat()
        .sort((a, b) => a.seq - b.seq);
      for (const { storedMs } of inWindow) {
        outcome.replayedStartMs = Math.min(outcome.replayedStartMs ?? storedMs, storedMs);
        outcome.replayedEndMs = Math.max(outcome.replayedEndMs ?? storedMs, storedMs);
      }
      this.evaluate(view, inWindow, tally, outcome, skipped);
      const busyMs = performance.now() - busyFrom;
      await options.onProgress(outcome.messagesReplayed, outcome.eventsReplayed);
      if (lanes.some((lane) => !lane.done)) await this.pause(stream, busyMs, options);
    }
    return { tally, outcome };
  }

  private async firstStoredFrom(
    reader: DirectReader,
    filter: string,
    first: number,
    last: number,
    startMs: number,
  ): Promise<number> {
    let [low, high] = [first, last + 1];
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      const message = await reader.next(middle, filter);
      if (!message || message.seq > last || message.storedMs >= startMs) high = middle;
      else low = message.seq + 1;
    }
    return low;
  }

  private async pause(stream: string, busyMs: number, options: ReplayOptions): Promise<void> {
    const jsm = await this.connection.jetstreamManager();
    const live = await jsm.consumers.info(stream, TRAFFIC_DURABLE).catch(() => undefined);
    const backlog =
      live === undefined || live.num_pending + live.num_ack_pending > options.backlogAbove;
    const ms = backlog
      ? Math.max(options.pauseMs, (busyMs * (1 - options.busyShare)) / options.busyShare)
      : options.pauseMs;
    await new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));
  }

  private evaluate(
    view: PolicyView,
    messages: readonly StoredEntry[],
    tally: BacktestTally,
    outcome: ReplayOutcome,
    skipped: Map<string, number>,
  ): void {
    const skip = (reason: string) => skipped.set(reason, (skipped.get(reason) ?? 0) + 1);
    const batch = evaluateBatch(
      messages.map((message) => ({
        seq: message.seq,
        redelivered: false,
        decoded: this.decoder.decode(
          message.subject,
          message.data,
          message.headers.get(CONTRACT_HEADERS.contractVersion) || undefined,
          message.headers.get(MESSAGE_ID_HEADER) || undefined,
        ),
      })),
      NOTHING_COUNTED,
      () => view,
    );
    outcome.messagesReplayed += messages.length;
    outcome.eventsReplayed += batch.evaluatedEvents;
    for (const { refusal } of batch.refused) skip(refusal.kind);
    tally.add(batch);
  }
}

const NOTHING_COUNTED: ReadonlySet<number> = new Set();
