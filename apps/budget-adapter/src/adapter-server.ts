import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import {
  ADAPTER_METHODS,
  ADAPTER_V1,
  CONTRACT_HEADERS,
  adapterQueueGroup,
  adapterSubject,
  formatContractVersion,
  type AdapterMethod,
  type AdapterStatus,
} from '@rollout/contracts';
import { toStatus } from '@rollout/platform/errors';
import type { ReadinessCheck } from '@rollout/platform/health';
import { NATS_CONNECTION, NatsNamespace } from '@rollout/platform/nats';
import { JSONCodec, headers, type Msg, type NatsConnection, type Subscription } from 'nats';
import { BudgetAdapter } from './budget/budget-adapter';
import { BudgetMetrics } from './budget/budget-metrics';
import { BUDGET_ADAPTER_CONFIG, type Config } from './config';

/** Copy this file to write an adapter: every reply is the method's JSON message, with a `status` even on failure. */
const HANDLERS: Record<AdapterMethod, (adapter: BudgetAdapter, body: unknown) => unknown> = {
  info: (adapter) => adapter.info(),
  validate: (adapter, body) => adapter.validate(body),
  createSession: (adapter, body) => adapter.createSession(body),
  closeSession: (adapter, body) => adapter.closeSession(body),
  handleCheck: (adapter, body) => adapter.handleCheck(body),
  handleQuota: (adapter, body) => adapter.handleQuota(body),
  handleReport: (adapter, body) => adapter.handleReport(body),
};

function failure(method: AdapterMethod, status: AdapterStatus): Record<string, unknown> {
  switch (method) {
    case 'createSession':
      return { sessionId: '', status };
    case 'handleCheck':
      return { status, validDuration: 0, validUseCount: 0 };
    case 'handleQuota':
      return { status, quotas: {} };
    default:
      return { status };
  }
}

const codec = JSONCodec();

/** Queue group `<name>`, so replicas share the work. */
@Injectable()
export class AdapterServer
  implements OnApplicationBootstrap, BeforeApplicationShutdown, ReadinessCheck
{
  readonly name = 'adapter-subscriptions';
  private readonly logger = new Logger('AdapterServer');
  private subscriptions: Subscription[] = [];
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly namespace: NatsNamespace,
    @Inject(BUDGET_ADAPTER_CONFIG) private readonly config: Config,
    private readonly adapter: BudgetAdapter,
    private readonly metrics: BudgetMetrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const queue = adapterQueueGroup(this.config.ADAPTER_NAME);
    this.subscriptions = ADAPTER_METHODS.map((method) =>
      this.nc.subscribe(this.namespace.subject(adapterSubject(this.config.ADAPTER_NAME, method)), {
        queue,
        callback: (error, msg) => {
          if (error) return this.logger.error({ err: error, method }, 'subscription error');
          const served = this.serve(method, msg).finally(() => this.inFlight.delete(served));
          this.inFlight.add(served);
        },
      }),
    );
    // The server knows the subscriptions before the process says it is ready.
    await this.nc.flush();
  }

  async check(): Promise<void> {
    if (!this.subscriptions.length || this.subscriptions.some((s) => s.isClosed()))
      throw new Error('not subscribed to the adapter subjects');
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.subscriptions.map((s) => s.drain().catch(() => undefined)));
    await Promise.all([...this.inFlight]);
  }

  private async serve(method: AdapterMethod, msg: Msg): Promise<void> {
    const started = process.hrtime.bigint();
    let reply: unknown;
    let status = 'OK';
    try {
      let body: unknown;
      try {
        body = msg.data.length ? codec.decode(msg.data) : {};
      } catch {
        throw Object.assign(new Error('The request body is not JSON.'), { status: 400 });
      }
      reply = await HANDLERS[method](this.adapter, body);
      status = (reply as { status?: AdapterStatus }).status?.status ?? 'OK';
    } catch (error) {
      const mapped = toStatus(error);
      if (mapped.errorId)
        this.logger.error({ err: error, errorId: mapped.errorId, method }, 'unexpected error');
      reply = failure(method, mapped.status);
      status = mapped.status.status;
    }
    this.metrics.call(method, status, Number(process.hrtime.bigint() - started) / 1e9);
    if (!msg.reply) return;
    const h = headers();
    h.set(CONTRACT_HEADERS.contractVersion, formatContractVersion(ADAPTER_V1));
    msg.respond(codec.encode(reply), { headers: h });
  }
}
