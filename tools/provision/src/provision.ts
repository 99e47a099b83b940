import {
  BusLimits,
  DEFAULT_BUS_LIMITS,
  JetStreamService,
  busTopology,
  topologyFor,
} from '@rollout/contracts';
import { commaSeparated, positiveInt } from '@rollout/platform/config';
import { NatsNamespace, inboxPrefixOf } from '@rollout/platform/nats';
import { NatsConnection, connect } from 'nats';
import { z } from 'zod';
import { declareJetStream } from './declare-jetstream';

const SERVICES: JetStreamService[] = [
  'experiment-service',
  'evaluator',
  'inspection-rules-service',
  'enforcement-service',
];

export const busProvisionConfigSchema = z.object({
  NATS_NAMESPACE: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'must be a short lower-case token ([a-z0-9_-])')
    .optional(),
  NATS_STREAM_REPLICAS: z.coerce
    .number({ error: 'must be 1, 3 or 5' })
    .refine((n) => [1, 3, 5].includes(n), 'must be 1, 3 or 5')
    .default(1),
  /** Only what these services use (comma-separated); everything when empty. */
  BUS_PROVISION_SERVICES: commaSeparated(z.enum(SERVICES)),
  TRAFFIC_MAX_AGE_MS: positiveInt(DEFAULT_BUS_LIMITS.trafficMaxAgeMs),
  TRAFFIC_MAX_BYTES: positiveInt(DEFAULT_BUS_LIMITS.trafficMaxBytes),
  PREVIEW_LOGS_MAX_AGE_MS: positiveInt(DEFAULT_BUS_LIMITS.previewLogsMaxAgeMs),
  PREVIEW_LOGS_MAX_BYTES: positiveInt(DEFAULT_BUS_LIMITS.previewLogsMaxBytes),
  EXPERIMENT_EVENTS_MAX_AGE_MS: positiveInt(DEFAULT_BUS_LIMITS.experimentEventsMaxAgeMs),
  EVALUATOR_ACK_WAIT_MS: positiveInt(DEFAULT_BUS_LIMITS.evaluatorAckWaitMs),
  EVALUATOR_MAX_ACK_PENDING: positiveInt(DEFAULT_BUS_LIMITS.evaluatorMaxAckPending),
});

export interface BusProvisionOptions {
  namespace?: string;
  replicas: number;
  limits: BusLimits;
  /** Everything when absent or empty. */
  services?: JetStreamService[];
}

/** The provisioning options an environment gives; throws naming each bad variable. */
export function busProvisionOptions(env: NodeJS.ProcessEnv): BusProvisionOptions {
  const parsed = busProvisionConfigSchema.safeParse(env);
  if (!parsed.success)
    throw new Error(
      `bus provisioning settings: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`,
    );
  const c = parsed.data;
  return {
    namespace: c.NATS_NAMESPACE,
    replicas: c.NATS_STREAM_REPLICAS,
    services: c.BUS_PROVISION_SERVICES.length > 0 ? c.BUS_PROVISION_SERVICES : undefined,
    limits: {
      trafficMaxAgeMs: c.TRAFFIC_MAX_AGE_MS,
      trafficMaxBytes: c.TRAFFIC_MAX_BYTES,
      previewLogsMaxAgeMs: c.PREVIEW_LOGS_MAX_AGE_MS,
      previewLogsMaxBytes: c.PREVIEW_LOGS_MAX_BYTES,
      experimentEventsMaxAgeMs: c.EXPERIMENT_EVENTS_MAX_AGE_MS,
      evaluatorAckWaitMs: c.EVALUATOR_ACK_WAIT_MS,
      evaluatorMaxAckPending: c.EVALUATOR_MAX_ACK_PENDING,
    },
  };
}

/** Idempotent. Needs a credential with JetStream's whole API; the services' own may not. */
export async function provisionBus(
  connection: NatsConnection,
  { namespace, replicas, limits, services }: BusProvisionOptions,
): Promise<ProvisionedBus> {
  const topology = topologyFor(busTopology(limits), services?.length ? services : undefined);
  const ns = new NatsNamespace(namespace);
  const changes = await declareJetStream(connection, ns, topology, { replicas });
  return {
    streams: topology.streams.map((s) => ns.stream(s.name)),
    consumers: topology.consumers.map((c) => `${ns.stream(c.stream)}/${c.durable}`),
    buckets: topology.kv.map((b) => ns.bucket(b.bucket)),
    changes,
  };
}

export interface ProvisionedBus {
  streams: string[];
  consumers: string[];
  buckets: string[];
  changes: string[];
}

export function provisioningReport(done: ProvisionedBus): string[] {
  return [
    `bus provisioned: ${done.streams.length} streams, ${done.consumers.length} durable consumers, ${done.buckets.length} buckets`,
    ...(done.changes.length
      ? done.changes.map((change) => `  ${change}`)
      : ['  nothing changed: every stream, durable consumer and bucket was as declared']),
  ];
}

/** Connects with NATS_USER/NATS_PASSWORD (or NATS_TOKEN): the provisioning user's, never a service's. */
export async function provisionFromEnv(env: NodeJS.ProcessEnv): Promise<ProvisionedBus> {
  const options = busProvisionOptions(env);
  const user = env.NATS_USER || undefined;
  const nc = await connect({
    name: 'bus-provision',
    servers: (env.NATS_URL || 'nats://127.0.0.1:4222').split(',').map((s) => s.trim()),
    ...(user ? { user, pass: env.NATS_PASSWORD, inboxPrefix: inboxPrefixOf(user) } : {}),
    token: env.NATS_TOKEN || undefined,
    timeout: 10_000,
  });
  try {
    return await provisionBus(nc, options);
  } finally {
    await nc.close();
  }
}
