import type { AdapterTemplate } from '@rollout/contracts';
import type { NatsConnection } from 'nats';

export interface AdapterConformanceOptions {
  /** Read when the tests run, e.g. set in a beforeAll. */
  connection: () => NatsConnection;
  /** Its NATS_NAMESPACE; none in production. */
  namespace?: string | (() => string | undefined);
  adapter: string;
  validConfig: Record<string, unknown>;
  invalidConfig: Record<string, unknown>;
  templates: AdapterTemplate[];
  /** Default true. */
  sessionBased?: boolean;
  timeoutMs: number;
  /**
   * A quota name the valid config limits, and the resource-hours (even, ≥ 2) it allows a new
   * project. Without it, quota answers are checked for their shape and rules only.
   */
  quota?: { name: string; budget: number };
}
