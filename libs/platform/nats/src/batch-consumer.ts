import { Logger } from '@nestjs/common';
import { BackgroundLoop, Sleeper, backoffMs } from '@rollout/platform/runtime';
import { ConsumerMessages, JsMsg, NatsConnection } from 'nats';
import { publishDeadLetter } from './dead-letter';
import { NatsNamespace } from './namespace';

/** Between retries of a batch whose handler failed: 100 ms, doubling, at most 5 s. */
const HANDLER_RETRY_BACKOFF = { baseMs: 100, maxMs: 5_000 };

/** A message of a batch that will never succeed, and why: it goes to the dead-letter subject. */
export interface Rejection {
  message: JsMsg;
  reason: string;
}

/**
 * Handles one batch. Resolves with the messages to dead-letter; every other message of the
 * batch is then acknowledged. Throwing means "not now" (a store is down): the same batch is
 * handed back after a back-off, its messages kept ours meanwhile, so a handler must be
 * idempotent per message.
 */
export type BatchHandler = (messages: JsMsg[]) => Promise<readonly Rejection[]>;

export interface BatchConsumerOptions {
  /** Stream and durable pull consumer as declared (un-namespaced). */
  stream: string;
  durable: string;
  maxMessages: number;
  /** Most payload bytes in one batch (a message bigger than this is a batch of its own). */
  maxBytes: number;
  /**
   * Most payload bytes held at once: pulled and not yet settled, whether still in the client's
   * buffer, in the batch being filled or in batches in flight (default 8 MiB). Each pull asks
   * for what fits, at the largest message size seen; a message may exceed it only alone.
   */
  maxHeldBytes?: number;
  concurrency: number;
  /** How long a partial batch waits for more messages while other batches are in flight. */
  lingerMs?: number;
  /** Called when a batch handler threw, before it is retried (metrics, logs). */
  onRetry?: (error: unknown, attempt: number) => void;
  /** Called with each message dead-lettered (metrics). */
  onDeadLetter?: (rejection: Rejection) => void;
  /** Log a line per message dead-lettered (default); false when onDeadLetter summarises them. */
  logEachDeadLetter?: boolean;
}

/**
 * A durable pull consumer read in batches, handled up to `concurrency` at a time.
 *
 * A batch is handed over when full (by messages or `maxBytes` of payload), or when the client
 * holds no further message and either nothing else is in flight (an idle consumer answers at
 * once) or it has lingered `lingerMs` (a busy one lets batches grow). Pulls are fetches of at
 * most `2 × maxMessages` messages and of what `maxHeldBytes` leaves room for, so what the
 * process holds stays bounded in bytes whatever a message holds (nats-server 2.9 stalls
 * byte-bounded pulls: the bound is kept here, by the number of messages each fetch asks for).
 *
 * Rejections go to `deadletter.v1.<stream>` and are terminated (a failed dead-letter publish is
 * redelivered, never lost); the rest are acked. A handler that throws is retried with back-off
 * while "in progress" acks keep its messages here; on stop they are nak'ed for redelivery.
 */
export class BatchConsumer {
  private readonly logger: Logger;
  /** Pulls again after a failed or ended pull. */
  private readonly consuming: BackgroundLoop;
  private messages?: ConsumerMessages;
  private readonly inFlight = new Set<Promise<void>>();
  private batch: JsMsg[] = [];
  private batchBytes = 0;
  /** Payload bytes pulled and not yet settled (see maxHeldBytes). */
  private heldBytes = 0;
  /** The largest payload seen (0: none yet). */
  private largestSeen = 0;
  private linger?: NodeJS.Timeout;
  private slotFreed?: () => void;
  /** The pull loop's and the backing-off batches' pauses, which stop() cuts short. */
  private readonly sleeper = new Sleeper();

  constructor(
    private readonly connection: NatsConnection,
    private readonly namespace: NatsNamespace,
    private readonly options: BatchConsumerOptions,
    private readonly handle: BatchHandler,
  ) {
    this.logger = new Logger(`BatchConsumer ${options.stream}/${options.durable}`);
    this.consuming = new BackgroundLoop({
      name: `BatchConsumer ${options.stream}/${options.durable}`,
      turn: () => this.consume(),
      intervalMs: 1_000,
      sleeper: this.sleeper,
      interrupt: () => {
        this.messages?.stop();
        this.slotFreed?.();
      },
      drain: () => this.settleTaken(),
    });
  }

  /** Starts consuming once `ready` resolves (for example, once the state the handler needs is loaded). */
  start(ready: Promise<void> = Promise.resolve()): void {
    this.consuming.start(ready);
  }

  /** Stops pulling, then waits for every batch already taken to be settled. */
  async stop(): Promise<void> {
    await this.consuming.stop();
  }

  private get running(): boolean {
    return this.consuming.isRunning;
  }

  private async consume(): Promise<void> {
    const stream = this.namespace.stream(this.options.stream);
    const consumer = await this.connection.jetstream().consumers.get(stream, this.options.durable);
    this.logger.log(`consuming ${stream} with durable consumer ${this.options.durable}`);
    while (this.running) {
      await this.roomToPull();
      if (!this.running) break;
      // Bounded by messages, not bytes: nats.js 2.x pulls by bytes in requests of 100 messages
      // and, on nats-server 2.9, new messages then wait for the request to expire.
      const messages = await consumer.fetch({
        max_messages: this.pullSize(),
        expires: PULL_EXPIRES_MS,
      });
      this.messages = messages;
      if (!this.running) messages.stop();
      await this.drain(messages);
    }
  }

  private get maxHeldBytes(): number {
    return this.options.maxHeldBytes ?? 8 * 1024 * 1024;
  }

  /** What each message of the next fetch is assumed to weigh. */
  private get messageWeight(): number {
    return this.largestSeen || FIRST_MESSAGE_GUESS;
  }

  /** Messages the next fetch may ask for: what the held bytes leave room for, at least one. */
  private pullSize(): number {
    const room = Math.floor((this.maxHeldBytes - this.heldBytes) / this.messageWeight);
    return Math.max(1, Math.min(this.options.maxMessages * 2, room));
  }

  /** Waits while what is held leaves no room for one more message (a lone batch still goes). */
  private async roomToPull(): Promise<void> {
    while (this.heldBytes + this.messageWeight > this.maxHeldBytes && this.running) {
      if (this.batch.length > 0 && this.inFlight.size < this.options.concurrency) this.flush();
      if (this.inFlight.size === 0) return;
      await new Promise<void>((resolve) => (this.slotFreed = resolve));
    }
  }

  private async settleTaken(): Promise<void> {
    if (this.batch.length > 0) this.flush();
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async drain(messages: ConsumerMessages): Promise<void> {
    // What the client still buffers is what it received less what it handed us. (Its
    // getPending() also counts the pull requests it queues among the messages, every quarter of
    // the buffer: the last message before one would wait in its batch for its ack wait.)
    let taken = 0;
    for await (const message of messages) {
      taken++;
      this.heldBytes += message.data.length;
      if (message.data.length > this.largestSeen) this.largestSeen = message.data.length;
      if (this.batch.length > 0 && this.batchBytes + message.data.length > this.options.maxBytes) {
        await this.freeSlot();
        if (this.batch.length > 0) this.flush();
      }
      this.batch.push(message);
      this.batchBytes += message.data.length;
      if (this.batch.length >= this.options.maxMessages) {
        await this.freeSlot();
        if (this.batch.length > 0) this.flush();
      } else if (messages.getReceived() <= taken) {
        // Nothing else waiting: an idle consumer answers at once, a busy one lingers.
        if (this.inFlight.size === 0) this.flush();
        else this.linger ??= setTimeout(() => this.lingered(), this.options.lingerMs ?? 20);
      }
    }
  }

  private lingered(): void {
    this.linger = undefined;
    if (this.batch.length === 0) return;
    if (this.inFlight.size < this.options.concurrency) this.flush();
    else this.linger = setTimeout(() => this.lingered(), this.options.lingerMs ?? 20);
  }

  private flush(): void {
    if (this.linger) clearTimeout(this.linger);
    this.linger = undefined;
    const batch = this.batch;
    const bytes = this.batchBytes;
    this.batch = [];
    this.batchBytes = 0;
    const task = this.settle(batch)
      .catch((error) =>
        this.logger.error({ err: error }, 'a batch failed; its messages will be redelivered'),
      )
      .finally(() => {
        this.heldBytes -= bytes;
        this.inFlight.delete(task);
        this.slotFreed?.();
        // Nothing else in flight: a lingering partial batch need not wait any longer.
        if (this.inFlight.size === 0 && this.batch.length > 0 && this.running) this.flush();
      });
    this.inFlight.add(task);
  }

  private async freeSlot(): Promise<void> {
    while (this.inFlight.size >= this.options.concurrency && this.running) {
      await new Promise<void>((resolve) => (this.slotFreed = resolve));
    }
  }

  private async settle(delivered: JsMsg[]): Promise<void> {
    const batch = onePerSequence(delivered);
    const rejections = await this.handleUntilDone(batch);
    if (!rejections) {
      // Stopping while the handler still fails: hand the messages back for redelivery.
      for (const message of batch) message.nak();
      return;
    }
    const rejected = new Set(rejections.map((r) => r.message));
    await Promise.all(rejections.map((rejection) => this.deadLetter(rejection)));
    for (const message of batch) if (!rejected.has(message)) message.ack();
  }

  private async handleUntilDone(batch: JsMsg[]): Promise<readonly Rejection[] | undefined> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.handle(batch);
      } catch (error) {
        this.options.onRetry?.(error, attempt);
        if (attempt % 10 === 0)
          this.logger.warn({ err: error, attempt }, 'handling a batch failed; retrying');
        if (!this.running) return undefined;
        // Keep the messages ours while the handler cannot succeed, rather than have them redelivered.
        for (const message of batch) message.working();
        await this.sleeper.sleep(backoffMs(attempt + 1, HANDLER_RETRY_BACKOFF));
      }
    }
  }

  private async deadLetter(rejection: Rejection): Promise<void> {
    const { message, reason } = rejection;
    try {
      await publishDeadLetter(
        this.connection,
        this.namespace,
        this.options.stream,
        message,
        reason,
      );
      message.term();
      this.options.onDeadLetter?.(rejection);
      if (this.options.logEachDeadLetter !== false)
        this.logger.warn(
          { subject: message.subject, seq: message.seq, reason },
          'message dead-lettered',
        );
    } catch (error) {
      // Never lose it: it comes back once the dead-letter stream answers again.
      this.logger.error({ err: error, seq: message.seq }, 'dead-letter publish failed');
      message.nak(1_000);
    }
  }
}

/** How long a fetch waits for messages on an idle stream before the next one is asked. */
const PULL_EXPIRES_MS = 5_000;
/** What each message of the first fetch is assumed to weigh, before any is seen. */
const FIRST_MESSAGE_GUESS = 16 * 1024;

/**
 * One delivery per stream sequence, the latest kept. A message whose ack wait ran out while it
 * waited in a lingering batch is delivered again into that same batch; handled twice, it
 * would be counted and dead-lettered twice. Settling one delivery settles the sequence (the
 * server keys acknowledgements by stream sequence), so the earlier delivery is simply dropped.
 */
export function onePerSequence<M extends { readonly seq: number }>(messages: readonly M[]): M[] {
  const latest = new Map<number, M>();
  for (const message of messages) latest.set(message.seq, message);
  return latest.size === messages.length ? [...messages] : [...latest.values()];
}
