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
  /** The evaluator running now (it throws while none is). */
  readonly app: INestApplication;
  /** Starts an evaluator on this isolation, closing the running one first; `env` goes beside the system's. */
  start(env?: Record<string, string>): Promise<INestApplication>;
  /** Closes the running evaluator; `start` brings one back. */
  stop(): Promise<void>;
  /** Runs `close` when the system closes, before its namespace and schema are removed (e.g. stops a process the test started). */
  onClose(close: () => Promise<unknown>): void;
}

export interface EvaluatorSystemOptions {
  /** Writes the state the evaluator finds when it starts. */
  given?: (system: EvaluatorSystem) => Promise<void>;
  /** Runs once the evaluator has started (not with `eachTest`), e.g. waiting until the state is in force. */
  started?: (system: EvaluatorSystem) => Promise<void>;
  /** The evaluator's settings beside the test settings. */
  env?: Record<string, string>;
  /**
   * The EXPERIMENT_STATE bucket `given` finds: `filled` (the default), `filling` (no position key
   * yet: the experiment-service is still writing it) or `none`.
   */
  bucket?: 'filled' | 'filling' | 'none';
  /**
   * A system of its own for each test, which starts its evaluator itself (`start` with the
   * settings it tests, or a process), rather than one system and evaluator for the file.
   */
  eachTest?: boolean;
}

/**
 * The system of a spec file (or of a `describe`, or of each test with `eachTest`): its own
 * namespace and schema, a NATS connection, the state bucket that `given` fills before the
 * evaluator starts, then the evaluator (with `env` beside the test settings) and `started`;
 * everything closed and removed after.
 */
export function evaluatorSystem({
  given,
  started,
  env = {},
  bucket = 'filled',
  eachTest = false,
}: EvaluatorSystemOptions = {}): EvaluatorSystem {
  let running: INestApplication | undefined;
  const closing: (() => Promise<unknown>)[] = [];
  const system = {
    get app(): INestApplication {
      if (!running) throw new Error('no evaluator is running');
      return running;
    },
    async start(extra: Record<string, string> = {}) {
      await system.stop();
      running = await startEvaluator(system.iso, { ...env, ...extra });
      return running;
    },
    async stop() {
      const app = running;
      running = undefined;
      await app?.close();
    },
    onClose(close: () => Promise<unknown>) {
      closing.push(close);
    },
  } as EvaluatorSystem;

  const open = async () => {
    system.iso = isolation();
    system.nc = await connect({ servers: TEST_NATS_URL });
    system.rpc = rpcClient(system.nc, system.iso);
    system.world = new ExperimentWorld(system.nc, system.iso);
    if (bucket !== 'none') await system.world.createBucket({ filled: bucket === 'filled' });
    await given?.(system);
    if (eachTest) return;
    await system.start();
    await started?.(system);
  };
  const close = async () => {
    for (const each of closing.splice(0).reverse()) await each();
    await system.stop();
    await system.nc?.close();
    if (system.iso) await cleanUp(system.iso);
  };
  if (eachTest) {
    beforeEach(open, 60_000);
    afterEach(close, 60_000);
  } else {
    beforeAll(open, 60_000);
    afterAll(close, 60_000);
  }
  return system;
}
