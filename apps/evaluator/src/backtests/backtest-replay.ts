import { CONTRACT_HEADERS, TRAFFIC_STREAM } from '@rollout/contracts';
import { NatsNamespace } from '@rollout/platform/nats';
import {
  BacktestTally,
  evaluateBatch,
  MESSAGE_ID_HEADER,
  PolicyView,
  ReplayOutcome,
  RequestedWindow,
  TrafficDecoder,
} from '@rollout/domain/preview';
import { AckPolicy, DeliverPolicy, JsMsg, NatsConnection, nanos } from 'nats';
import { TRAFFIC_DURABLE } from '../jetstream';

export interface ReplayOptions {
  /** Most TRAFFIC messages fetched and evaluated at once. */
  batchSize: number;
  /** Pause between batches while the live consumer has nothing to read. */
  pauseMs: number;
  /** While it has a backlog, the most of this process's time the replay takes (0-1): it pauses for the rest. */
  busyShare: number;
  /** Live messages waiting or in flight above which the live consumer has a backlog (more than it takes in at once). */
  backlogAbove: number;
  maxFlows: number;
  /** Called after every batch with the counts so far. */
  onProgress: (messages: number, events: number) => Promise<void>;
  /** True once the replay should give up (the process is stopping). */
  stopping: () => boolean;
}

export class ReplayStopped extends Error {}

/** An ephemeral consumer left behind by a crash goes by itself after this long without a pull. */
const INACTIVE_THRESHOLD_MS = 60_000;

/**
 * Reads a policy's traffic back from TRAFFIC and evaluates it as the live path does (its decoder,
 * then evaluate and aggregateMessages of the preview domain) against a backtest's own view.
 *
 * One ephemeral pull consumer without acks, filtered to `traffic.*.{project}.{location}.{policy}`
 * (every major the decoder reads, one filter subject as NATS 2.9 allows), starting at the window's
 * start; it is deleted at the end. The replay stops at the window's end (stream time) or at the
 * stream's last sequence when it started, whichever comes first. Batches are fetched one at a
 * time, each at most `batchSize` messages, with a pause between them that, while the live
 * consumer has a backlog, leaves it at least `1 - busyShare` of the process.
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
    id: string,
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

    const name = `backtest-${id}`;
    const info = await jsm.consumers.add(stream, {
      name,
      ack_policy: AckPolicy.None,
      filter_subject: this.namespace.subject(`traffic.*.${trafficKey}`),
      ...(window.startMs === undefined
        ? { deliver_policy: DeliverPolicy.All }
        : {
            deliver_policy: DeliverPolicy.StartTime,
            opt_start_time: new Date(window.startMs).toISOString(),
          }),
      inactive_threshold: nanos(INACTIVE_THRESHOLD_MS),
      mem_storage: true,
    });
    try {
      const consumer = await this.connection.jetstream().consumers.get(stream, name);
      let pending = info.num_pending;
      let ended = false;
      while (pending > 0 && !ended) {
        if (options.stopping()) throw new ReplayStopped();
        const busyFrom = performance.now();
        const messages: JsMsg[] = [];
        for await (const message of await consumer.fetch({
          max_messages: Math.min(options.batchSize, pending),
          expires: 5_000,
        }))
          messages.push(message);
        if (messages.length === 0) break;
        pending = messages[messages.length - 1].info.pending;
        const inWindow: JsMsg[] = [];
        for (const message of messages) {
          const storedMs = Math.floor(message.info.timestampNanos / 1e6);
          if (
            message.seq > state.last_seq ||
            (window.endMs !== undefined && storedMs > window.endMs)
          ) {
            ended = true;
            break;
          }
          if (window.startMs !== undefined && storedMs < window.startMs) continue;
          inWindow.push(message);
          outcome.replayedStartMs ??= storedMs;
          outcome.replayedEndMs = storedMs;
        }
        this.evaluate(view, inWindow, tally, outcome, skipped);
        const busyMs = performance.now() - busyFrom;
        await options.onProgress(outcome.messagesReplayed, outcome.eventsReplayed);
        await this.pause(stream, busyMs, options);
      }
    } finally {
      await jsm.consumers.delete(stream, name).catch(() => undefined);
    }
    return { tally, outcome };
  }

  /**
   * Leaves the live consumer its share: while it has a backlog, the replay pauses so that its own
   * work takes at most `busyShare` of the time; otherwise it only pauses `pauseMs` (or yields).
   */
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

  /** Decodes and evaluates one batch as the live consumer does, and adds it to the tally. */
  private evaluate(
    view: PolicyView,
    messages: readonly JsMsg[],
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
          message.headers?.get(CONTRACT_HEADERS.contractVersion),
          message.headers?.get(MESSAGE_ID_HEADER) || undefined,
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

/** A backtest counts nothing in the store: every message is evaluated. */
const NOTHING_COUNTED: ReadonlySet<number> = new Set();
