import {
  ServiceProcess,
  TEST_NATS_URL,
  TEST_POSTGRES_URL,
  eventually,
  freePort,
  removeTestResources,
  startServiceProcess,
  uniqueName,
} from '@rollout/testing/kit';
import { connect, type NatsConnection } from 'nats';

/** What a spec file's budget adapter runs on: filled in by the hooks `budgetAdapterSystem` registers. */
export interface BudgetAdapterSystem {
  namespace: string;
  schema: string;
  port: number;
  /** A NATS connection of the test (not the adapter's). */
  nc: NatsConnection;
  process: ServiceProcess;
  /** Stops the adapter (SIGTERM, or SIGKILL to simulate a crash) and starts it again on the same schema. */
  restart(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  metrics(): Promise<string>;
}

async function ready(port: number): Promise<void> {
  await eventually(
    async () => {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`);
      return response.status === 200 ? true : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: 'budget-adapter ready' },
  );
}

/**
 * The one system of a spec file: the budget adapter from its own main.ts in a child process (with
 * `env` beside the test settings), on a NATS namespace and a Postgres schema of its own, ready
 * before the file (or the `describe` it is called in) and removed after it.
 */
export function budgetAdapterSystem(env: Record<string, string> = {}): BudgetAdapterSystem {
  const system = {
    namespace: uniqueName(),
    schema: uniqueName('it_budget_'),
  } as BudgetAdapterSystem;
  const start = () =>
    startServiceProcess('budget-adapter', {
      NATS_NAMESPACE: system.namespace,
      DATABASE_SCHEMA: system.schema,
      DATABASE_URL: TEST_POSTGRES_URL,
      PORT: String(system.port),
      ...env,
    });
  system.restart = async (signal = 'SIGTERM') => {
    await system.process.stop(signal);
    system.process = start();
    await ready(system.port);
  };
  system.metrics = async () => (await fetch(`http://127.0.0.1:${system.port}/metrics`)).text();
  beforeAll(async () => {
    system.port = await freePort();
    system.nc = await connect({ servers: TEST_NATS_URL });
    system.process = start();
    await ready(system.port);
  }, 90_000);
  afterAll(async () => {
    await system.process?.stop();
    await system.nc?.close();
    await removeTestResources({ schema: system.schema, namespace: system.namespace });
  });
  return system;
}
