import { Inject, Injectable } from '@nestjs/common';
import {
  ADAPTER_V1,
  CONTRACT_HEADERS,
  adapterSubject as contractSubject,
  formatContractVersion,
} from '@rollout/contracts';
import {
  NATS_CONNECTION,
  NATS_MODULE_OPTIONS,
  NatsModuleOptions,
  NatsNamespace,
} from '@rollout/platform/nats';
import {
  ErrorCode,
  JSONCodec,
  MsgHdrs,
  NatsConnection,
  NatsError,
  headers as natsHeaders,
} from 'nats';
import { EnforcementMetrics } from '../metrics/enforcement-metrics';

const codec = JSONCodec<unknown>();

export type AdapterMethod =
  | 'info'
  | 'validate'
  | 'createSession'
  | 'closeSession'
  | 'handleCheck'
  | 'handleQuota'
  | 'handleReport';

/** Nobody serves its subject, it was too slow, or it answered garbage. */
export class AdapterCallError extends Error {
  override readonly name = 'AdapterCallError';
  constructor(
    message: string,
    readonly reason: 'down' | 'timeout' | 'bad_reply' | 'transport',
  ) {
    super(message);
  }
}

export function adapterSubject(
  namespace: NatsNamespace,
  adapter: string,
  method: AdapterMethod,
): string {
  return namespace.subject(contractSubject(adapter, method));
}

/**
 * Every call carries the `Contract-Version` and `User-Agent` headers the contract promises. No
 * responders is "adapter down" at once; both that and a timeout reject with AdapterCallError.
 */
@Injectable()
export class AdapterClient {
  private readonly userAgent: string;

  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    private readonly namespace: NatsNamespace,
    private readonly metrics: EnforcementMetrics,
    @Inject(NATS_MODULE_OPTIONS) options: Pick<NatsModuleOptions, 'name' | 'version'>,
  ) {
    this.userAgent = options.version ? `${options.name}/${options.version}` : options.name;
  }

  private headers(): MsgHdrs {
    const hdrs = natsHeaders();
    hdrs.set(CONTRACT_HEADERS.contractVersion, formatContractVersion(ADAPTER_V1));
    hdrs.set(CONTRACT_HEADERS.userAgent, this.userAgent);
    return hdrs;
  }

  async call<T>(
    adapter: string,
    method: AdapterMethod,
    payload: unknown,
    timeoutMs: number,
  ): Promise<T> {
    const started = process.hrtime.bigint();
    const elapsed = () => Number(process.hrtime.bigint() - started) / 1e9;
    let reply;
    try {
      reply = await this.connection.request(
        adapterSubject(this.namespace, adapter, method),
        codec.encode(payload),
        { timeout: timeoutMs, headers: this.headers() },
      );
    } catch (error) {
      const failure = toCallError(error, adapter, method, timeoutMs);
      this.metrics.adapterCall(adapter, method, failure.reason, elapsed());
      throw failure;
    }
    let body: unknown;
    try {
      body = codec.decode(reply.data);
    } catch {
      body = undefined;
    }
    if (typeof body !== 'object' || body === null) {
      this.metrics.adapterCall(adapter, method, 'bad_reply', elapsed());
      throw new AdapterCallError(
        `Adapter ${adapter} answered ${method} with something that is not a JSON object.`,
        'bad_reply',
      );
    }
    this.metrics.adapterCall(adapter, method, 'ok', elapsed());
    return body as T;
  }
}

function toCallError(
  error: unknown,
  adapter: string,
  method: AdapterMethod,
  timeoutMs: number,
): AdapterCallError {
  const code = error instanceof NatsError ? error.code : undefined;
  if (code === ErrorCode.NoResponders)
    return new AdapterCallError(
      `Adapter ${adapter} is not running (nobody answers ${method}).`,
      'down',
    );
  if (code === ErrorCode.Timeout)
    return new AdapterCallError(
      `Adapter ${adapter} did not answer ${method} within ${timeoutMs} ms.`,
      'timeout',
    );
  return new AdapterCallError(
    `Adapter ${adapter} could not be reached for ${method}: NATS unavailable.`,
    'transport',
  );
}
