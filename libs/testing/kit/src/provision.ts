import {
  JetStreamService,
  busProvisionOptions,
  inboxPrefixOf,
  provisionBus,
} from '@rollout/platform/nats';
import { connect } from 'nats';
import { TEST_NATS_URL } from './servers';

const JETSTREAM_SERVICES: readonly string[] = [
  'experiment-service',
  'evaluator',
  'inspection-rules-service',
];

/** The NATS user a test provisions with on a server of its own with users (the shared test server has none). */
export interface ProvisionCredentials {
  user: string;
  pass: string;
}

/**
 * What the provisioning step does before a service starts (docs/bus-security.md), for a test:
 * creates or updates the streams, consumers and buckets `app` uses, with the limits, namespace
 * and replicas that `env` gives (the service's own env: TRAFFIC_MAX_BYTES, NATS_NAMESPACE,
 * NATS_STREAM_REPLICAS…). Nothing for an app that uses no JetStream.
 */
export async function provisionFor(
  app: string,
  env: Record<string, string | undefined>,
  credentials?: ProvisionCredentials,
): Promise<void> {
  if (!JETSTREAM_SERVICES.includes(app)) return;
  const nc = await connect({
    servers: (env.NATS_URL ?? TEST_NATS_URL).split(','),
    ...(credentials && { ...credentials, inboxPrefix: inboxPrefixOf(credentials.user) }),
  });
  try {
    await provisionBus(nc, {
      ...busProvisionOptions({ ...env, BUS_PROVISION_SERVICES: undefined }),
      services: [app as JetStreamService],
    });
  } finally {
    await nc.close();
  }
}
