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

export interface RunningBudgetAdapter {
  namespace: string;
  schema: string;
  port: number;
  /** A NATS connection of the test (not the adapter's). */
  nc: NatsConnection;
  process: ServiceProcess;
  /** Stops the adapter (SIGTERM, or SIGKILL to simulate a crash) and starts it again on the same schema. */
  restart(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  metrics(): Promise<string>;
  close(): Promise<void>;
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

/** The budget adapter from its own main.ts in a child process, on a NATS namespace and a Postgres schema of its own. */
export async function startBudgetAdapter(
  env: Record<string, string> = {},
): Promise<RunningBudgetAdapter> {
  const namespace = uniqueName();
  const schema = uniqueName('it_budget_');
  const port = await freePort();
  const start = () =>
    startServiceProcess('budget-adapter', {
      NATS_NAMESPACE: namespace,
      DATABASE_SCHEMA: schema,
      DATABASE_URL: TEST_POSTGRES_URL,
      PORT: String(port),
      ...env,
    });
  const running: RunningBudgetAdapter = {
    namespace,
    schema,
    port,
    nc: await connect({ servers: TEST_NATS_URL }),
    process: start(),
    async restart(signal = 'SIGTERM') {
      await running.process.stop(signal);
      running.process = start();
      await ready(port);
    },
    async metrics() {
      return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    },
    async close() {
      await running.process.stop();
      await running.nc.close();
      await removeTestResources({ schema, namespace });
    },
  };
  try {
    await ready(port);
  } catch (error) {
    await running.close();
    throw error;
  }
  return running;
}
