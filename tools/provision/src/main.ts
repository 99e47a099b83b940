/**
 * The bus provisioning step (docs/bus-security.md): creates every stream, durable consumer and
 * KV bucket of the system, or updates it to the declared config, then exits. Runs before the
 * services, as their migrations do: the Kubernetes Job `bus-provision`, `npm start` (the
 * launcher), or by hand: `npm run bus:provision` (`node dist/tools/provision/src/main.js`).
 *
 * Env: NATS_URL (comma-separated servers), NATS_USER and NATS_PASSWORD (the provisioning
 * user's: no service's user may create a stream), NATS_NAMESPACE, NATS_STREAM_REPLICAS, the
 * limits (TRAFFIC_MAX_AGE_MS, TRAFFIC_MAX_BYTES, PREVIEW_LOGS_MAX_AGE_MS,
 * PREVIEW_LOGS_MAX_BYTES, EXPERIMENT_EVENTS_MAX_AGE_MS, EVALUATOR_ACK_WAIT_MS,
 * EVALUATOR_MAX_ACK_PENDING) and BUS_PROVISION_SERVICES (only what these services use).
 * Exit code 0: provisioned; 1: it could not (the reason on stderr).
 */
import { provisionFromEnv } from '@rollout/platform/nats';

provisionFromEnv(process.env).then(
  (provisioned) => process.stdout.write(`${JSON.stringify({ provisioned })}\n`),
  (error: unknown) => {
    process.stderr.write(
      `bus provisioning failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  },
);
