/**
 * The bus provisioning step (docs/bus-security.md): creates every stream, durable consumer and
 * KV bucket, or brings it back to its declaration, prints what it changed, then exits; it runs before the services, as their migrations do (the
 * Kubernetes Job `bus-provision`, `npm start`, or `npm run bus:provision`). It connects as the
 * provisioning user (NATS_USER, NATS_PASSWORD): no service's user may create a stream. The other
 * variables it reads: provisionFromEnv. Exit code 0: provisioned; 1: it could not (on stderr).
 */
import { provisionFromEnv, provisioningReport } from './provision';

provisionFromEnv(process.env).then(
  (provisioned) => process.stdout.write(`${provisioningReport(provisioned).join('\n')}\n`),
  (error: unknown) => {
    process.stderr.write(
      `bus provisioning failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  },
);
