/**
 * The bus provisioning step (docs/bus-security.md); runs before the services, as their migrations
 * do, as the provisioning user: no service's user may create a stream. Exit 1: it could not.
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
