import { NatsContext, ServerNats } from '@nestjs/microservices';
import type { Msg, NatsConnection, Subscription } from 'nats';
import { NatsNamespace } from './namespace';

export interface NatsRpcServerOptions {
  /** Queue group: replicas of one service share the requests. */
  queue: string;
  namespace: NatsNamespace;
  /** Longest wait for in-flight requests at shutdown. */
  drainTimeoutMs?: number;
}

/**
 * The NestJS NATS transport, bound to the process's shared connection and namespace.
 * On shutdown it stops taking requests and waits until every request it took has been
 * answered; the connection itself is NatsModule's to drain, last.
 */
export class NatsRpcServer extends ServerNats {
  private readonly served: Subscription[] = [];
  /** Requests taken whose final reply is not yet published. */
  private readonly pending = new Set<Msg>();
  private onIdle?: () => void;

  constructor(
    private readonly connection: NatsConnection,
    private readonly rpcOptions: NatsRpcServerOptions,
  ) {
    super({ queue: rpcOptions.queue });
  }

  override async createNatsClient(): Promise<NatsConnection> {
    return this.connection;
  }

  /** Ready only once the server has every subscription, so no request finds none. */
  override start(callback: (error?: unknown) => void): void {
    this.bindEvents(this.connection);
    this.connection.flush().then(() => callback(), callback);
  }

  override bindEvents(client: NatsConnection): void {
    for (const [pattern, handlerRef] of this.messageHandlers) {
      const queue = (handlerRef.extras?.queue as string | undefined) ?? this.rpcOptions.queue;
      this.served.push(
        client.subscribe(this.rpcOptions.namespace.subject(pattern), {
          queue,
          callback: (error, message) => void this.track(pattern, error, message),
        }),
      );
    }
  }

  private async track(pattern: string, error: Error | null, message: Msg) {
    if (message?.reply) this.pending.add(message);
    try {
      await this.getMessageHandler(pattern).call(this, error, message);
    } catch (failure) {
      this.settle(message);
      this.logger.error(failure);
    }
  }

  override getPublisher(message: Msg, id: string, ctx: NatsContext): (response: unknown) => unknown {
    const publish = super.getPublisher(message, id, ctx);
    return (response) => {
      const result = publish(response);
      const packet = response as { isDisposed?: boolean; err?: unknown };
      if (packet.isDisposed || packet.err !== undefined) this.settle(message);
      return result;
    };
  }

  private settle(message: Msg) {
    if (this.pending.delete(message) && this.pending.size === 0) this.onIdle?.();
  }

  override async close(): Promise<void> {
    await Promise.allSettled(this.served.splice(0).map((sub) => sub.drain()));
    if (this.pending.size === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.rpcOptions.drainTimeoutMs ?? 10_000);
      this.onIdle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
