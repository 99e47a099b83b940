import { NatsContext, ServerNats } from '@nestjs/microservices';
import { NO_MESSAGE_HANDLER } from '@nestjs/microservices/constants';
import { StatusError } from '@rollout/contracts';
import type { Msg, MsgHdrs, NatsConnection, Subscription } from 'nats';
import { NatsNamespace } from './namespace';

/** A request as the transport's hooks see it. */
export interface RpcRequestInfo {
  /** The subject it came on (with the namespace). */
  subject: string;
  headers?: MsgHdrs;
}

/** A request as a gate sees it, before any handler. */
export interface GatedRequest {
  /** The subject it came on (namespace included). */
  subject: string;
  headers?: MsgHdrs;
  /** The payload as it arrived, bytes. */
  payload: Uint8Array;
  /** The handler's argument (the packet's `data`), decoded. */
  data: unknown;
}

/** Decides, before the handler, whether a request may run at all; throws (or rejects with) a StatusError to refuse it. */
export interface RpcRequestGate {
  admit(request: GatedRequest): void | Promise<void>;
}

/** One request's stay in a hook: from arrival until its final reply is out. */
export interface RpcRequestScope {
  /** Runs the rest of the request (the handler); wrap it to give the handler an async context. */
  run?<T>(handle: () => T): T;
  /** The final reply went out (`failed`: it carries an error), or the request was dropped. */
  end?(failed: boolean): void;
}

/**
 * What runs around every request the server takes: request-scoped logging, request metrics.
 * It lives in the transport because a Nest interceptor costs an AsyncResource and an rxjs
 * pipeline per request each, which three of them made a tenth of a service's CPU
 * (the lease benchmark's profiles, test/bench).
 */
export interface RpcRequestHook {
  begin(request: RpcRequestInfo): RpcRequestScope;
}

export interface NatsRpcServerOptions {
  /** Queue group: replicas of one service share the requests. */
  queue: string;
  namespace: NatsNamespace;
  /** Longest wait for in-flight requests at shutdown. */
  drainTimeoutMs?: number;
  /** Run around every request, the first outermost. */
  hooks?: RpcRequestHook[];
  /** Decides whether a request runs at all (the actor assertion); refused ones are answered with its error. */
  gate?: RpcRequestGate;
}

/**
 * The NestJS NATS transport, bound to the process's shared connection and namespace.
 * On shutdown it stops taking requests and waits until every request it took has been
 * answered; the connection itself is NatsModule's to drain, last.
 */
export class NatsRpcServer extends ServerNats {
  private readonly served: Subscription[] = [];
  /** Requests taken whose final reply is not yet published, with their hooks' scopes. */
  private readonly pending = new Map<Msg, RpcRequestScope[]>();
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
    const scopes = message
      ? (this.rpcOptions.hooks ?? []).map((hook) =>
          hook.begin({ subject: message.subject, headers: message.headers }),
        )
      : [];
    if (message?.reply) this.pending.set(message, scopes);
    const handle = () =>
      this.getMessageHandler(pattern).call(this, error, message) as Promise<unknown>;
    const run = scopes.reduceRight(
      (inner, scope) => (scope.run ? () => scope.run!(inner) : inner),
      handle,
    );
    try {
      await run();
      if (message && !message.reply) endAll(scopes, false);
    } catch (failure) {
      this.settle(message, true);
      this.logger.error(failure);
    }
  }

  /**
   * Nest's handleMessage, with the gate between decoding and the handler: the packet is
   * decoded once, and a refused request is answered with the gate's Status, its handler never
   * called.
   */
  override async handleMessage(channel: string, message: Msg): Promise<unknown> {
    const packet = (await this.deserializer.deserialize(message.data, {
      channel,
      replyTo: message.reply,
    })) as { id?: string; data?: unknown };
    const context = new NatsContext([message.subject, message.headers]);
    const refusal = await this.refusal(message, packet.data);
    // An event (no id) expects no reply: a refused one is dropped, as the gate has logged.
    if (packet.id === undefined)
      return refusal ? undefined : this.handleEvent(channel, packet as never, context);
    const publish = this.getPublisher(message, packet.id, context);
    if (refusal) return publish({ err: refusal.toStatus(), isDisposed: true });
    const handler = this.getHandlerByPattern(channel);
    if (!handler) return publish({ id: packet.id, status: 'error', err: NO_MESSAGE_HANDLER });
    return this.onProcessingStartHook(this.transportId, context, async () => {
      const response$ = this.transformToObservable(await handler(packet.data, context));
      if (response$) this.send(response$, publish as (packet: unknown) => void);
    });
  }

  private async refusal(message: Msg, data: unknown): Promise<StatusError | undefined> {
    if (!this.rpcOptions.gate) return undefined;
    try {
      // A state-changing request waits for its replay check; a read is admitted synchronously.
      const admitted = this.rpcOptions.gate.admit({
        subject: message.subject,
        headers: message.headers,
        payload: message.data,
        data,
      });
      if (admitted) await admitted;
      return undefined;
    } catch (error) {
      // A gate that fails in an unexpected way still refuses: it fails closed.
      return error instanceof StatusError
        ? error
        : StatusError.withReason(
            'PERMISSION_DENIED',
            'The request could not be checked.',
            'GATE_FAILED',
          );
    }
  }

  /** Our handler map's keys are the subjects themselves: Nest's JSON.parse of each (and the exception it throws per message) is not needed. */
  override getRouteFromPattern(pattern: string): string {
    return pattern;
  }

  override getPublisher(
    message: Msg,
    id: string,
    ctx: NatsContext,
  ): (response: unknown) => unknown {
    const publish = super.getPublisher(message, id, ctx);
    return (response) => {
      let packet = response as { isDisposed?: boolean; err?: unknown };
      let result: unknown;
      try {
        result = publish(packet);
      } catch (error) {
        // An answer over the server's max_payload would never arrive: the caller would wait
        // out its timeout. Answer why instead.
        if ((error as { code?: string })?.code !== 'MAX_PAYLOAD_EXCEEDED') throw error;
        this.logger.error({ subject: message.subject }, 'the reply exceeds the bus message limit');
        packet = { err: replyTooLarge(), isDisposed: true };
        result = publish(packet);
      }
      if (packet.isDisposed || packet.err !== undefined)
        this.settle(message, packet.err !== undefined);
      return result;
    };
  }

  private settle(message: Msg, failed: boolean) {
    const scopes = this.pending.get(message);
    if (!scopes) return;
    this.pending.delete(message);
    endAll(scopes, failed);
    if (this.pending.size === 0) this.onIdle?.();
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

const replyTooLarge = () =>
  StatusError.withReason(
    'RESOURCE_EXHAUSTED',
    'The answer is larger than one bus message carries; ask for a smaller page.',
    'REPLY_TOO_LARGE',
  ).toStatus();

function endAll(scopes: RpcRequestScope[], failed: boolean) {
  for (const scope of scopes) scope.end?.(failed);
}
