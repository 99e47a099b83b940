/**
 * The bus provisioning step (docs/bus-security.md): creates every stream, durable consumer and
 * KV bucket of the system, or updates it to the declared config, then exits. Runs before the
 * services, as their migrations do: the Kubernetes Job `bus-provision`, `npm start` (the
 * launcher), or by hand: `node dist/tools/provision/src/main.js`.
 *
 * Env: NATS_URL (comma-separated servers), NATS_USER and NATS_PASSWORD (the provisioning
 * user's: no service's user may create a stream), NATS_NAMESPACE, NATS_STREAM_REPLICAS, the
 * limits (TRAFFIC_MAX_AGE_MS, TRAFFIC_MAX_BYTES, PREVIEW_LOGS_MAX_AGE_MS,
 * PREVIEW_LOGS_MAX_BYTES, EXPERIMENT_EVENTS_MAX_AGE_MS, EVALUATOR_ACK_WAIT_MS,
 * EVALUATOR_MAX_ACK_PENDING) and BUS_PROVISION_SERVICES (only what these services use).
 * Exit code 0: provisioned; 1: it could not (the reason on stderr).
 */
import { busProvisionOptions, inboxPrefixOf, provisionBus } from '@rollout/platform/nats';
import { connect } from 'nats';

async function main(env: NodeJS.ProcessEnv): Promise<void> {
  const options = busProvisionOptions(env);
  const servers = (env.NATS_URL || 'nats://127.0.0.1:4222').split(',').map((s) => s.trim());
  const user = env.NATS_USER || undefined;
  const nc = await connect({
    name: 'bus-provision',
    servers,
    ...(user ? { user, pass: env.NATS_PASSWORD, inboxPrefix: inboxPrefixOf(user) } : {}),
    token: env.NATS_TOKEN || undefined,
    timeout: 10_000,
  });
  try {
    const done = await provisionBus(nc, options);
    process.stdout.write(`${JSON.stringify({ provisioned: done, replicas: options.replicas })}\n`);
  } finally {
    await nc.close();
  }
}

main(process.env).catch((error: unknown) => {
  process.stderr.write(
    `bus provisioning failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
