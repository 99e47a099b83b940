import { Inject, Injectable } from '@nestjs/common';
import { CONTRACT_PACKAGES, DEPRECATED_FEATURE_USE_METRIC } from '@rollout/contracts';
import { Counter, Registry } from 'prom-client';
import { METRICS_REGISTRY } from './tokens';

/** Bounded labels: the rest are `other`. */
export const MAX_CLIENT_LABELS = 100;

/** Every label is bounded: only features some package defines are counted. */
@Injectable()
export class ClientMetrics {
  private readonly requests: Counter<'transport' | 'client' | 'contract'>;
  private readonly features: Counter<'transport' | 'client' | 'feature'>;
  private readonly deprecated: Counter<'contract' | 'field' | 'client'>;
  private readonly clients = new Set<string>();
  private readonly knownFeatures = new Set(CONTRACT_PACKAGES.flatMap((p) => p.features ?? []));

  constructor(@Inject(METRICS_REGISTRY) registry: Registry) {
    this.requests = new Counter({
      name: 'contract_client_requests_total',
      help: 'Requests by transport (http, nats), client (User-Agent name) and contract (Contract-Version package; none when absent, unknown when unparseable or not served).',
      labelNames: ['transport', 'client', 'contract'],
      registers: [registry],
    });
    this.features = new Counter({
      name: 'contract_client_features_total',
      help: 'Requests that declared a feature in Client-Features, by transport, client and feature (features some contract package defines).',
      labelNames: ['transport', 'client', 'feature'],
      registers: [registry],
    });
    this.deprecated = new Counter({
      name: DEPRECATED_FEATURE_USE_METRIC,
      help: 'Uses of deprecated contract fields, messages or subjects, by contract, field (the deprecated target) and client.',
      labelNames: ['contract', 'field', 'client'],
      registers: [registry],
    });
  }

  clientLabel(name: string): string {
    if (this.clients.has(name)) return name;
    if (this.clients.size >= MAX_CLIENT_LABELS) return 'other';
    this.clients.add(name);
    return name;
  }

  recordRequest(
    transport: 'http' | 'nats',
    client: string,
    contract: string,
    features: readonly string[],
  ): void {
    const label = this.clientLabel(client);
    this.requests.inc({ transport, client: label, contract });
    for (const feature of features) {
      if (this.knownFeatures.has(feature)) this.features.inc({ transport, client: label, feature });
    }
  }

  recordDeprecatedUse(contract: string, field: string, client: string): void {
    this.deprecated.inc({ contract, field, client: this.clientLabel(client) });
  }
}
