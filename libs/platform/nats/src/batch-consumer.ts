import { Logger } from '@nestjs/common';
import { BackgroundLoop, Sleeper, backoffMs } from '@rollout/platform/runtime';
import { ConsumerMessages, JsMsg, NatsConnection } from 'nats';
import { publishDeadLetter } from './dead-letter';
import { NatsNamespace } from './namespace';

const HANDLER_RETRY_BACKOFF = { baseMs: 100, maxMs: 5_000 };

export interface Rejection {
  message: JsMsg;
  reason: string;
}

/**
 * Resolves with the messages to dead-letter; the rest are acked. Throwing means "not now": the
 * batch is retried after a back-off, so a handler must be idempotent per message.
 */
export type BatchHandler = (messages: JsMsg[]) => Promise<readonly Rejection[]>;

export interface BatchConsumerOptions {
  stream: string;
  durable: string;
  maxMessages: number;
  maxBytes: number;
  /** Bytes pulled and not yet settled, wherever they wait (default 8 MiB). */
  maxHeldBytes?: number;
  concurrency: number;
  lingerMs?: number;
  onRetry?: (error: unknown, attempt: number) => void;
  onDeadLetter?: (rejection: Rejection) => void;
  /** false when onDeadLetter summarises them. */
  logEachDeadLetter?: boolean;
}

/**
 * A durable pull consumer read in batches, handled up to `concurrency` at a time. A partial
 * batch goes at once when idle and lingers `lingerMs` when busy. Held bytes are bounded by the
 * number of messages each fetch asks for, since nats-server 2.9 stalls byte-bounded pulls.
 */
export class BatchConsumer {
  private readonly logger: Logger;
  private readonly consuming: BackgroundLoop;
  private messages?: ConsumerMessages;
  private readonly inFlight = new Set<Promise<void>>();
  private batch: JsMsg[] = [];
  private batchBytes = 0;
  private heldBytes = 0;
  private largestSeen = 0;
  private linger?: NodeJS.Timeout;
  private slotFreed?: () => void;
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

  start(ready: Promise<void> = Promise.resolve()): void {
    this.consuming.start(ready);
  }

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

  private get messageWeight(): number {
    return this.largestSeen || FIRST_MESSAGE_GUESS;
  }

  private pullSize(): number {
    const room = Math.floor((this.maxHeldBytes - this.heldBytes) / this.messageWeight);
    return Math.max(1, Math.min(this.options.maxMessages * 2, room));
  }

  /** A lone batch still goes even when it exceeds maxHeldBytes. */
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
    // Buffered = received less taken; getPending() also counts queued pull requests, which
    // would leave the last message before one waiting out its ack wait.
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
      // Stopping while the handler still fails: handed back for redelivery.
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
        // working() keeps the messages ours instead of letting them be redelivered.
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
      // Never lost: redelivered once the dead-letter stream answers again.
      this.logger.error({ err: error, seq: message.seq }, 'dead-letter publish failed');
      message.nak(1_000);
    }
  }
}

const PULL_EXPIRES_MS = 5_000;
const FIRST_MESSAGE_GUESS = 16 * 1024;

/**
 * A message whose ack wait ran out in a lingering batch is redelivered into that same batch;
 * the server acks by sequence, so the earlier delivery is dropped rather than handled twice.
 */
export function onePerSequence<M extends { readonly seq: number }>(messages: readonly M[]): M[] {
  const latest = new Map<number, M>();
  for (const message of messages) latest.set(message.seq, message);
  return latest.size === messages.length ? [...messages] : [...latest.values()];
}
