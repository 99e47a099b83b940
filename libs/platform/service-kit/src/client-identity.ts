import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { NatsContext } from '@nestjs/microservices';
import {
  CONTRACT_HEADERS,
  ContractPackage,
  StatusError,
  checkContractVersion,
  clientNameOf,
  parseClientFeatures,
} from '@rollout/contracts';
import { ClientMetrics } from '@rollout/platform/metrics';
import type { MsgHdrs } from 'nats';

export function natsIdentityHeaders(context: NatsContext): {
  contractVersion?: string;
  userAgent?: string;
  clientFeatures?: string;
} {
  const headers = context.getHeaders() as MsgHdrs | undefined;
  const get = (name: string) => headers?.get(name) || undefined;
  return {
    contractVersion: get(CONTRACT_HEADERS.contractVersion),
    userAgent: get(CONTRACT_HEADERS.userAgent),
    clientFeatures: get(CONTRACT_HEADERS.clientFeatures),
  };
}

export function declaredFeatures(context: NatsContext): string[] {
  return parseClientFeatures(natsIdentityHeaders(context).clientFeatures);
}

/**
 * Refuses a `Contract-Version` major the service does not serve; requests without the headers
 * (older clients) are served. A guard, not an interceptor: it costs no rxjs pipeline.
 */
@Injectable()
export class ClientIdentityGuard implements CanActivate {
  constructor(
    private readonly served: readonly ContractPackage[],
    private readonly metrics: ClientMetrics,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'rpc') return true;
    const headers = natsIdentityHeaders(context.switchToRpc().getContext<NatsContext>());
    const client = clientNameOf(headers.userAgent);
    const check = checkContractVersion(headers.contractVersion, this.served);
    const contract = check.ok
      ? (check.contract?.name ?? (headers.contractVersion ? 'unknown' : 'none'))
      : 'unknown';
    this.metrics.recordRequest(
      'nats',
      client,
      contract,
      parseClientFeatures(headers.clientFeatures),
    );
    if (!check.ok) {
      throw StatusError.withReason(
        'FAILED_PRECONDITION',
        `Contract-Version ${check.requested.name}/${check.requested.version} is not served here; this service serves ${check.servedMajors.join(', ')}.`,
        'CONTRACT_MAJOR_NOT_SERVED',
        { requested: check.requested.name, served: check.servedMajors.join(',') },
      );
    }
    return true;
  }
}
