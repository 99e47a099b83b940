import type { AdapterTemplate } from '@rollout/contracts';
import type { NatsConnection } from 'nats';

/** What the conformance suite needs to know of the adapter it checks. */
export interface AdapterConformanceOptions {
  /** The NATS connection to call the adapter on (read when the tests run, e.g. set in a beforeAll). */
  connection: () => NatsConnection;
  /** The subject prefix the adapter runs under (its NATS_NAMESPACE); none in production. */
  namespace?: string | (() => string | undefined);
  /** The adapter's name (`adapter.v1.<adapter>.*`). */
  adapter: string;
  /** A config Validate accepts and sessions are created with. */
  validConfig: Record<string, unknown>;
  /** A config Validate refuses. */
  invalidConfig: Record<string, unknown>;
  /** The templates the adapter must declare in Info (the suite checks each one's calls). */
  templates: AdapterTemplate[];
  /** Whether the adapter must say it is session based (default true). */
  sessionBased?: boolean;
  /** Every call must be answered within this many ms. */
  timeoutMs: number;
  /**
   * For adapters with the quota template: a quota name the valid config limits, and the
   * resource-hours (an even integer ≥ 2) it allows a project the adapter has never seen (the
   * kit uses a fresh project id per run). Without it, quota answers are checked for their
   * shape and rules only.
   */
  quota?: { name: string; budget: number };
}
