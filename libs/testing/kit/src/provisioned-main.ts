/**
 * A service process as a test starts it (startServiceProcess): the provisioning step for what
 * the app uses, then the app's own main, as a Kubernetes Job runs before the service's pods.
 * Usage: node provisioned-main.ts <app>; TEST_PROVISION_NATS_USER and _PASSWORD name the
 * provisioning user on a server with users.
 */
import { join } from 'node:path';
import { provisionFor } from './provision';

const app = process.argv[2];
const { TEST_PROVISION_NATS_USER: user, TEST_PROVISION_NATS_PASSWORD: pass } = process.env;

provisionFor(app, process.env, user && pass ? { user, pass } : undefined).then(
  () => require(join(__dirname, '..', '..', '..', '..', 'apps', app, 'src', 'main.ts')),
  (error: unknown) => {
    process.stderr.write(`${app}: provisioning its streams failed: ${String(error)}\n`);
    process.exit(1);
  },
);
