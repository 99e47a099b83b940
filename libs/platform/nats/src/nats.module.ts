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
import { NatsNamespace } from './namespace';
import { HOW_TO_PROVISION, missingFromBus } from './provision';
import { PullConsumerHost } from './pull-consumer-host';
import { NatsRpcClient } from './rpc-client';
import { NatsModuleOptions, inboxPrefixOf } from './nats-options';
import { NATS_CONNECTION, NATS_MODULE_OPTIONS } from './tokens';

/**
 * Ready while the connection is up and, once, every stream, durable consumer and bucket the
 * service uses was found (the provisioning step creates them; the service may not).
 */
@Injectable()
export class NatsReadiness implements ReadinessCheck {
  readonly name = 'nats';
  private provisioned = false;
  private readonly logger = new Logger('Nats');
  private lastMissing = '';

  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    @Inject(NATS_MODULE_OPTIONS) private readonly options: NatsModuleOptions,
    private readonly namespace: NatsNamespace,
  ) {}

  async check(): Promise<void> {
    if (this.connection.isClosed()) throw new Error('connection closed');
    await this.connection.flush();
    await this.checkProvisioned();
  }

  /** Throws naming what is missing; logs it once per change. */
  async checkProvisioned(): Promise<void> {
    const needs = this.options.jetstream;
    if (this.provisioned || !needs) return;
    const missing = await missingFromBus(this.connection, this.namespace, needs);
    const problem = missing.length ? `${missing.join(', ')} missing: ${HOW_TO_PROVISION}` : '';
    if (problem && problem !== this.lastMissing) this.logger.error(problem);
    this.lastMissing = problem;
    if (problem) throw new Error(problem);
    this.provisioned = true;
  }
}

/** Checks at start that the service's JetStream resources exist, and drains the connection last at shutdown. */
@Injectable()
export class NatsLifecycle implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Nats');

  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    private readonly readiness: NatsReadiness,
  ) {}

  async onModuleInit(): Promise<void> {
    // Not fatal: the service starts unready, and becomes ready once provisioning has run.
    await this.readiness.checkProvisioned().catch(() => undefined);
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
