import { Inject, Injectable } from '@nestjs/common';
import {
  ACTOR_ASSERTION_HEADER,
  ActorClaims,
  CONTRACT_HEADERS,
  CONTRACT_PACKAGES,
  Status,
  StatusError,
  formatContractVersion,
  isStatus,
  packageOfSubject,
} from '@rollout/contracts';
import { randomUUID } from 'node:crypto';
import { ErrorCode, JSONCodec, NatsConnection, NatsError, headers as natsHeaders } from 'nats';
import { NatsNamespace } from './namespace';
import type { ActorSigner, NatsModuleOptions } from './nats-options';
import { NATS_CONNECTION, NATS_MODULE_OPTIONS } from './tokens';

const codec = JSONCodec<unknown>();

export interface RpcCallOptions {
  timeoutMs: number;
  headers?: Record<string, string>;
  features?: readonly string[];
  /** Signed into an `Actor-Assertion` header when the process has a signing key. */
  actor?: ActorClaims;
}

interface NestReplyPacket {
  id?: string;
  response?: unknown;
  err?: unknown;
}

/**
 * Not Nest's ClientProxy: it publishes to an inbox, so cannot tell "nobody is listening" from
 * "too slow". Here a stopped service is UNAVAILABLE at once and a slow one DEADLINE_EXCEEDED
 * (docs/architecture.md).
 */
@Injectable()
export class NatsRpcClient {
  private readonly userAgent: string;
  private readonly signer?: ActorSigner;

  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    private readonly namespace: NatsNamespace,
    @Inject(NATS_MODULE_OPTIONS)
    options: Pick<NatsModuleOptions, 'name' | 'version' | 'actorSigner'> = { name: 'unknown' },
  ) {
    this.userAgent = options.version ? `${options.name}/${options.version}` : options.name;
    this.signer = options.actorSigner;
  }

  /** Version metadata travels in headers, never in payloads (docs/architecture.md). */
  async request<T>(subject: string, data: unknown, options: RpcCallOptions): Promise<T> {
    const hdrs = natsHeaders();
    const contract = packageOfSubject(subject, CONTRACT_PACKAGES);
    if (contract) hdrs.set(CONTRACT_HEADERS.contractVersion, formatContractVersion(contract));
    hdrs.set(CONTRACT_HEADERS.userAgent, this.userAgent);
    if (options.features?.length)
      hdrs.set(CONTRACT_HEADERS.clientFeatures, options.features.join(', '));
    for (const [key, value] of Object.entries(options.headers ?? {})) hdrs.set(key, value);
    const packet = codec.encode({ pattern: subject, data, id: randomUUID() });
    const sentOn = this.namespace.subject(subject);
    if (this.signer && options.actor)
      hdrs.set(ACTOR_ASSERTION_HEADER, this.signer.sign(sentOn, packet, options.actor));
    let reply;
    try {
      reply = await this.connection.request(sentOn, packet, {
        timeout: options.timeoutMs,
        headers: hdrs,
      });
    } catch (error) {
      throw mapTransportError(error, subject, options.timeoutMs);
    }
    const body = codec.decode(reply.data) as NestReplyPacket;
    if (body.err !== undefined && body.err !== null) throw toStatusError(body.err, subject);
    return body.response as T;
  }
}

function mapTransportError(error: unknown, subject: string, timeoutMs: number): StatusError {
  const code = error instanceof NatsError ? error.code : undefined;
  if (code === ErrorCode.NoResponders) {
    return StatusError.withReason(
      'UNAVAILABLE',
      `No service is serving ${subject}.`,
      'NO_RESPONDERS',
      {
        subject,
      },
    );
  }
  if (code === ErrorCode.Timeout) {
    return StatusError.withReason(
      'DEADLINE_EXCEEDED',
      `${subject} did not answer within ${timeoutMs} ms.`,
      'UPSTREAM_TIMEOUT',
      { subject },
    );
  }
  return StatusError.withReason(
    'UNAVAILABLE',
    `NATS is unavailable for ${subject}.`,
    'NATS_UNAVAILABLE',
    {
      subject,
    },
  );
}

function toStatusError(err: unknown, subject: string): StatusError {
  if (isStatus(err)) return StatusError.fromStatus(err as Status);
  // The transport's own errors (e.g. no handler) are plain strings.
  return StatusError.withReason('UNIMPLEMENTED', `${subject}: ${String(err)}`, 'NO_HANDLER', {
    subject,
  });
}
