import { parseContractVersion } from '@rollout/contracts';
import { TRAFFIC_MAJORS } from '@rollout/domain/preview';

/** Keeps the metric's labels bounded: later names count as `other`. */
export const MAX_TRAFFIC_CLIENTS = 100;

/** The first product token of a User-Agent (`acme-exporter/2.3.1 (linux)` → `acme-exporter`). */
const PRODUCT =
  /^\s*([A-Za-z0-9][A-Za-z0-9._-]{0,62})(?:\/[A-Za-z0-9][A-Za-z0-9.+_-]{0,31})?(?:\s|$)/;
const SERVED = new Set<string>(Object.values(TRAFFIC_MAJORS).map((p) => p.name));

/** Every label value is bounded: absent, malformed or unread values are `unknown`. */
export class TrafficClients {
  private readonly names = new Set<string>();

  labels(
    userAgent: string | undefined,
    contractVersion: string | undefined,
  ): { client: string; contract: string } {
    return { client: this.client(userAgent), contract: contractOf(contractVersion) };
  }

  private client(userAgent: string | undefined): string {
    const name = PRODUCT.exec(userAgent ?? '')?.[1].toLowerCase();
    if (!name) return 'unknown';
    if (this.names.has(name)) return name;
    if (this.names.size >= MAX_TRAFFIC_CLIENTS) return 'other';
    this.names.add(name);
    return name;
  }
}

function contractOf(contractVersion: string | undefined): string {
  const declared = parseContractVersion(contractVersion)?.name;
  return declared && SERVED.has(declared) ? declared : 'unknown';
}
