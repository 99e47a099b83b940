import {
  DynamicModule,
  Inject,
  Injectable,
  Logger,
  Module,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import type { ReadinessCheck } from '@rollout/platform/health';
import { NatsConnection, connect } from 'nats';
import { coalesceWrites } from './coalesce-writes';
import { DEAD_LETTER_STREAM, declareJetStream } from './jetstream-setup';
import { NatsNamespace } from './namespace';
import { PullConsumerHost } from './pull-consumer-host';
import { NatsRpcClient } from './rpc-client';
import { NatsModuleOptions, inboxPrefixOf } from './nats-options';
import { NATS_CONNECTION, NATS_MODULE_OPTIONS } from './tokens';

@Injectable()
export class NatsReadiness implements ReadinessCheck {
  readonly name = 'nats';

  constructor(@Inject(NATS_CONNECTION) private readonly connection: NatsConnection) {}

  async check(): Promise<void> {
    if (this.connection.isClosed()) throw new Error('connection closed');
    await this.connection.flush();
  }
}

/** Declares JetStream resources at start, and drains the connection last at shutdown. */
@Injectable()
export class NatsLifecycle implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Nats');

  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    @Inject(NATS_MODULE_OPTIONS) private readonly options: NatsModuleOptions,
    private readonly namespace: NatsNamespace,
  ) {}

  async onModuleInit(): Promise<void> {
    const declarations = this.options.jetstream;
    if (!declarations) return;
    const needsDeadLetters = (declarations.consumers ?? []).length > 0;
    await declareJetStream(
      this.connection,
      this.namespace,
      {
        ...declarations,
        streams: [
          ...(needsDeadLetters ? [DEAD_LETTER_STREAM] : []),
          ...(declarations.streams ?? []),
        ],
      },
      { replicas: this.options.replicas ?? 1 },
    );
    void this.watchStatus();
  }

  private async watchStatus() {
    for await (const status of this.connection.status()) {
      if (status.type === 'disconnect' || status.type === 'error') {
        this.logger.warn(
          { nats: status.type, data: String(status.data) },
          'NATS connection problem',
        );
      } else if (status.type === 'reconnect') {
        this.logger.log({ nats: status.type, data: String(status.data) }, 'NATS reconnected');
      }
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.connection.isClosed()) await this.connection.drain();
  }
}

/**
 * One NATS connection per process, shared by request/reply (both sides), JetStream and KV.
 * The service fails at boot when NATS cannot be reached, then reconnects forever; /readyz
 * reports the connection.
 */
@Module({})
export class NatsModule {
  static forRoot(options: NatsModuleOptions): DynamicModule {
    return {
      module: NatsModule,
      global: true,
      providers: [
        { provide: NATS_MODULE_OPTIONS, useValue: options },
        { provide: NatsNamespace, useValue: new NatsNamespace(options.namespace) },
        {
          provide: NATS_CONNECTION,
          useFactory: async (): Promise<NatsConnection> => {
            try {
              const connection = await connect({
                name: options.name,
                servers: options.servers,
                user: options.user,
                pass: options.password,
                token: options.token,
                // A user's replies arrive under an inbox of its own, the only one its NATS
                // permissions let it subscribe to, so no client reads another's replies.
                inboxPrefix: options.user ? inboxPrefixOf(options.user) : undefined,
                timeout: options.connectTimeoutMs ?? 5_000,
                maxReconnectAttempts: -1,
                reconnectTimeWait: 1_000,
                // Capturing a stack on every request (for async traces) is a measurable share
                // of a request's CPU; our errors are mapped to Status without it.
                noAsyncTraces: true,
              });
              if (!coalesceWrites(connection)) {
                new Logger('Nats').warn(
                  'this nats.js does not look like 2.x: every message is its own socket write',
                );
              }
              return connection;
            } catch (error) {
              const reason = error instanceof Error ? error.message : String(error);
              throw new Error(`cannot connect to NATS at ${options.servers.join(',')}: ${reason}`);
            }
          },
        },
        NatsLifecycle,
        NatsReadiness,
        NatsRpcClient,
        PullConsumerHost,
      ],
      exports: [
        NATS_CONNECTION,
        NATS_MODULE_OPTIONS,
        NatsNamespace,
        NatsReadiness,
        NatsRpcClient,
        PullConsumerHost,
      ],
    };
  }
}
