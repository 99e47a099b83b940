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
import { busDrift } from './bus-drift';
import { PullConsumerHost } from './pull-consumer-host';
import { NatsRpcClient } from './rpc-client';
import { NatsModuleOptions, inboxPrefixOf } from './nats-options';
import { NATS_CONNECTION, NATS_MODULE_OPTIONS } from './tokens';

export const TOPOLOGY_CHECK_INTERVAL_MS = 10_000;

/**
 * Ready while connected and the streams, consumers and buckets used are as declared (the
 * provisioning step creates them, not the service). While something differs, every readiness
 * check compares again, so a repair is seen at once.
 */
@Injectable()
export class NatsReadiness implements ReadinessCheck {
  readonly name = 'nats';
  private readonly logger = new Logger('Nats');
  /** '' when all was as declared; undefined before the first comparison. */
  private problem?: string;

  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    @Inject(NATS_MODULE_OPTIONS) private readonly options: NatsModuleOptions,
    private readonly namespace: NatsNamespace,
  ) {}

  async check(): Promise<void> {
    if (this.connection.isClosed()) throw new Error('connection closed');
    await this.connection.flush();
    if (this.problem !== '') await this.checkTopology();
    if (this.problem) throw new Error(this.problem);
  }

  /** Logs what differs once per change. */
  async checkTopology(): Promise<void> {
    const needs = this.options.jetstream;
    if (!needs) {
      this.problem = '';
      return;
    }
    let problem: string;
    try {
      problem = (await busDrift(this.connection, this.namespace, needs)).join('; ');
    } catch (error) {
      problem = `cannot compare the bus with the declared topology: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (problem && problem !== this.problem) this.logger.error(problem);
    else if (!problem && this.problem) this.logger.log('the bus is as declared');
    this.problem = problem;
  }
}

@Injectable()
export class NatsLifecycle implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Nats');
  private watching?: NodeJS.Timeout;
  private comparing?: Promise<void>;

  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    @Inject(NATS_MODULE_OPTIONS) private readonly options: NatsModuleOptions,
    private readonly readiness: NatsReadiness,
  ) {}

  async onModuleInit(): Promise<void> {
    // Not fatal: the service starts unready until provisioning has run.
    await this.readiness.checkTopology();
    if (this.options.jetstream) {
      this.watching = setInterval(() => {
        this.comparing ??= this.readiness.checkTopology().finally(() => {
          this.comparing = undefined;
        });
      }, this.options.topologyCheckIntervalMs ?? TOPOLOGY_CHECK_INTERVAL_MS);
      this.watching.unref();
    }
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
    clearInterval(this.watching);
    await this.comparing;
    if (!this.connection.isClosed()) await this.connection.drain();
  }
}

/** One NATS connection per process; fails at boot when unreachable, then reconnects forever. */
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
                // The only inbox its permissions allow, so no client reads another's replies.
                inboxPrefix: options.user ? inboxPrefixOf(options.user) : undefined,
                timeout: options.connectTimeoutMs ?? 5_000,
                maxReconnectAttempts: -1,
                reconnectTimeWait: 1_000,
                // A stack per request (async traces) is a measurable share of a request's CPU.
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
