import {
  ADAPTER_V1,
  CONTRACT_HEADERS,
  STATUS_CODES,
  adapterSubject,
  formatContractVersion,
  isStatusCode,
  type AdapterMethod,
  type AdapterStatus,
} from '@rollout/contracts';
import { JSONCodec, headers, type NatsConnection } from 'nats';

const codec = JSONCodec<unknown>();

export interface AdapterReply<T> {
  body: T;
  contractVersion?: string;
}

export class AdapterTestClient {
  constructor(
    private readonly nc: NatsConnection,
    readonly adapter: string,
    private readonly options: { namespace?: string; timeoutMs: number; userAgent?: string },
  ) {}

  subject(method: AdapterMethod): string {
    const subject = adapterSubject(this.adapter, method);
    return this.options.namespace ? `${this.options.namespace}.${subject}` : subject;
  }

  /** `body` may be raw bytes, to test malformed input. */
  async call<T = Record<string, unknown>>(
    method: AdapterMethod,
    body: unknown,
  ): Promise<AdapterReply<T>> {
    const h = headers();
    h.set(CONTRACT_HEADERS.contractVersion, formatContractVersion(ADAPTER_V1));
    h.set(CONTRACT_HEADERS.userAgent, this.options.userAgent ?? 'adapter-conformance/1.0.0');
    const data = body instanceof Uint8Array ? body : codec.encode(body);
    let reply;
    try {
      reply = await this.nc.request(this.subject(method), data, {
        timeout: this.options.timeoutMs,
        headers: h,
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(
        `${this.subject(method)} did not answer within ${this.options.timeoutMs} ms (${reason})`,
      );
    }
    return {
      body: codec.decode(reply.data) as T,
      contractVersion: reply.headers?.get(CONTRACT_HEADERS.contractVersion) || undefined,
    };
  }
}

/** undefined when it is a well-formed AdapterStatus. */
export function statusProblem(status: unknown): string | undefined {
  if (typeof status !== 'object' || status === null)
    return `status is ${JSON.stringify(status)}, not an object`;
  const s = status as Partial<AdapterStatus> & Record<string, unknown>;
  if (typeof s.message !== 'string') return 'status.message is not a string';
  if (!Array.isArray(s.details)) return 'status.details is not a list';
  if (s.status === 'OK')
    return s.code === 200 ? undefined : `an OK status has code ${String(s.code)}, not 200`;
  if (!isStatusCode(s.status))
    return `status.status ${JSON.stringify(s.status)} is not OK nor a canonical code`;
  const http = STATUS_CODES[s.status].http;
  return s.code === http ? undefined : `status ${s.status} has code ${String(s.code)}, not ${http}`;
}
