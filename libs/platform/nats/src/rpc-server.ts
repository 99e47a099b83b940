import { NatsContext, ServerNats } from '@nestjs/microservices';
import { NO_MESSAGE_HANDLER } from '@nestjs/microservices/constants';
import { StatusError } from '@rollout/contracts';
import type { Msg, MsgHdrs, NatsConnection, Subscription } from 'nats';
import { NatsNamespace } from './namespace';

export interface RpcRequestInfo {
  subject: string;
  headers?: MsgHdrs;
}

export interface GatedRequest {
  subject: string;
  headers?: MsgHdrs;
  payload: Uint8Array;
  data: unknown;
}

/** Throws (or rejects with) a StatusError to refuse a request before its handler. */
export interface RpcRequestGate {
  admit(request: GatedRequest): void | Promise<void>;
}

export interface RpcRequestScope {
  /** Wraps the handler, e.g. to give it an async context. */
  run?<T>(handle: () => T): T;
  /** Once the final reply is out (`failed`: it carries an error) or the request was dropped. */
  end?(failed: boolean): void;
}

/**
 * Request logging and metrics live in the transport because a Nest interceptor costs an
 * AsyncResource and an rxjs pipeline per request: three made a tenth of a service's CPU
 * (lease benchmark profiles, test/bench).
 */
export interface RpcRequestHook {
  begin(request: RpcRequestInfo): RpcRequestScope;
}

export interface NatsRpcServerOptions {
  queue: string;
  namespace: NatsNamespace;
  drainTimeoutMs?: number;
  /** The first is outermost. */
  hooks?: RpcRequestHook[];
  gate?: RpcRequestGate;
}

/** On shutdown, waits for every request taken to be answered; NatsModule drains the connection last. */
export class NatsRpcServer extends ServerNats {
  private readonly served: Subscription[] = [];
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

  /** Ready only once every subscription is on the server, so no request finds none. */
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

  /** Nest's handleMessage, with the gate between decoding and the handler. */
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
      // An unexpected failure still refuses: the gate fails closed.
      return error instanceof StatusError
        ? error
        : StatusError.withReason(
            'PERMISSION_DENIED',
            'The request could not be checked.',
            'GATE_FAILED',
          );
    }
  }

  /** Our handler keys are the subjects: skips Nest's JSON.parse per message (and the exception it throws). */
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
        // An answer over max_payload would never arrive and the caller would time out: say why.
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
