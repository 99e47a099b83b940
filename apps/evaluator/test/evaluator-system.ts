import type { INestApplication } from '@nestjs/common';
import type { NatsRpcClient } from '@rollout/platform/nats';
import { TEST_NATS_URL } from '@rollout/testing/kit';
import { NatsConnection, connect } from 'nats';
import { Isolation, cleanUp, isolation, rpcClient, startEvaluator } from './evaluator-app';
import { ExperimentWorld } from './experiment-world';

/** What a spec file's evaluator runs in: filled in by the hooks `evaluatorSystem` registers. */
export interface EvaluatorSystem {
  iso: Isolation;
  nc: NatsConnection;
  rpc: NatsRpcClient;
  /** The EXPERIMENT_STATE bucket the evaluator reads, written by the test. */
  world: ExperimentWorld;
  /** The evaluator; a spec may close it and start another on the same isolation. */
  app: INestApplication;
}

/**
 * The one system of a spec file: its own namespace and schema, a NATS connection, the state
 * bucket that `given` fills before the evaluator starts, then the evaluator (with `env` beside
 * the test settings) and `started` (e.g. waiting until the state is in force); everything closed
 * and removed after the file (or the `describe` it is called in).
 */
export function evaluatorSystem(
  given: (system: Omit<EvaluatorSystem, 'app'>) => Promise<void> = async () => undefined,
  started: (system: EvaluatorSystem) => Promise<void> = async () => undefined,
  env: Record<string, string> = {},
): EvaluatorSystem {
  const system = {} as EvaluatorSystem;
  beforeAll(async () => {
    system.iso = isolation();
    system.nc = await connect({ servers: TEST_NATS_URL });
    system.rpc = rpcClient(system.nc, system.iso);
    system.world = new ExperimentWorld(system.nc, system.iso);
    await system.world.createBucket();
    await given(system);
    system.app = await startEvaluator(system.iso, env);
    await started(system);
  }, 30_000);
  afterAll(async () => {
    await system.app?.close();
    await system.nc?.close();
    if (system.iso) await cleanUp(system.iso);
  });
  return system;
}
