import { ServerNats } from '@nestjs/microservices';
import type { NatsConnection, Subscription } from 'nats';
import { NatsNamespace } from './namespace';

export interface NatsRpcServerOptions {
  /** Queue group: replicas of one service share the requests. */
  queue: string;
  namespace: NatsNamespace;
}

/**
 * The NestJS NATS transport, bound to the process's shared connection and namespace.
 * On shutdown it drains its own subscriptions (in-flight requests are answered) and leaves
 * the connection to NatsModule, which drains it last.
 */
export class NatsRpcServer extends ServerNats {
  private readonly served: Subscription[] = [];

  constructor(
    private readonly connection: NatsConnection,
    private readonly rpcOptions: NatsRpcServerOptions,
  ) {
    super({ queue: rpcOptions.queue });
  }

  override async createNatsClient(): Promise<NatsConnection> {
    return this.connection;
  }

  override bindEvents(client: NatsConnection): void {
    for (const [pattern, handlerRef] of this.messageHandlers) {
      const queue = (handlerRef.extras?.queue as string | undefined) ?? this.rpcOptions.queue;
      this.served.push(
        client.subscribe(this.rpcOptions.namespace.subject(pattern), {
          queue,
          callback: this.getMessageHandler(pattern).bind(this),
        }),
      );
    }
  }

  override async close(): Promise<void> {
    await Promise.allSettled(this.served.splice(0).map((sub) => sub.drain()));
  }
}
