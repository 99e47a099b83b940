import { type AdapterStatus, OK_STATUS } from '@rollout/contracts';
import { provisionFromEnv } from '@rollout/provision';
import {
  REPO_ROOT,
  TEST_NATS_URL,
  TEST_POSTGRES_URL,
  eventually,
  freePort,
  removeTestResources,
  uniqueName,
} from '@rollout/testing/kit';
import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JSONCodec, Msg, NatsConnection, Subscription, connect } from 'nats';

export interface EnforcementProcess {
  child: ChildProcess;
  /** What it wrote so far. */
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then waits for the exit. Harmless once exited. */
  stop(): Promise<void>;
}

/**
 * The service from its own main.ts in a child process, as it boots in production, with no
 * environment but PATH, the test servers and `env`: nothing of the test's own leaks in.
 */
export function spawnEnforcementService(env: Record<string, string>): EnforcementProcess {
  const child = spawn(
    process.execPath,
    [
      '-r',
      'reflect-metadata',
      '-r',
      '@swc-node/register',
      join(REPO_ROOT, 'apps/enforcement-service/src/main.ts'),
    ],
    {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        NATS_URL: TEST_NATS_URL,
        DATABASE_URL: TEST_POSTGRES_URL,
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const written = { stdout: '', stderr: '' };
  child.stdout!.on('data', (chunk: Buffer) => (written.stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (written.stderr += chunk.toString()));
  const exited = once(child, 'exit');
  return {
    child,
    stdout: () => written.stdout,
    stderr: () => written.stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Waits until the service on `port` answers ready. */
export const ready = (port: number) =>
  eventually(
    async () =>
      (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200 ? true : undefined,
    { timeoutMs: 30_000, intervalMs: 200, what: 'enforcement-service ready' },
  );

/** What a spec file's enforcement-service runs on: filled in by the hooks `enforcementServiceSystem` registers. */
export interface EnforcementServiceSystem {
  namespace: string;
  schema: string;
  nc: NatsConnection;
  /** The chain file the service reads; only SIGHUP reloads it (the file watch is set to an hour). */
  chainFile: string;
  /** Writes a chain of one filter, `probe`, calling the adapter with `params: { version }`. */
  writeChain(version: number): void;
  /** Every session the adapter opened and every close it was sent, in order: `create s1 {"version":1}`, `close s1`. */
  sessions: string[];
  /** Answers every CloseSession the adapter holds, with OK. */
  releaseCloses(): void;
  /** Takes the adapter off the bus: every call to it finds no responder until `adapterUp`. */
  adapterDown(): Promise<void>;
  adapterUp(): Promise<void>;
  service: EnforcementProcess;
}

export interface EnforcementServiceOptions {
  /** The probe filter's settings beside its adapter, params and templates, e.g. `timeout_ms: 1000`. */
  probe?: string;
  /** How the adapter answers the `nth` CloseSession (from 1): a status, or held until `releaseCloses`; OK by default. */
  closeSession?: (nth: number) => AdapterStatus | 'hold';
  /** Settings of the service beside the test's. */
  env?: Record<string, string>;
}

const codec = JSONCodec<Record<string, unknown>>();

/**
 * The one system of a spec file: the service on a NATS namespace and a Postgres schema of its
 * own, its filter chain one adapter filter, `probe`, whose adapter is a few lines of the raw
 * `nats` client on the real server (it opens sessions s1, s2… and answers every other call OK);
 * started before the file (or the `describe` it is called in) and ready with the chain of
 * version 1, stopped and removed after it.
 */
export function enforcementServiceSystem({
  probe = '',
  closeSession = () => OK_STATUS,
  env = {},
}: EnforcementServiceOptions = {}): EnforcementServiceSystem {
  const dir = mkdtempSync(join(tmpdir(), 'enforcement-'));
  const adapter = uniqueName('probe-');
  const held: Msg[] = [];
  const system = {
    namespace: uniqueName(),
    schema: uniqueName('it_'),
    chainFile: join(dir, 'enforcement.yaml'),
    sessions: [] as string[],
  } as EnforcementServiceSystem;
  system.writeChain = (version) =>
    writeFileSync(
      system.chainFile,
      `
enabled_filters: [probe]
filters:
  probe: { adapter: ${adapter}, params: { version: ${version} }, templates: [check]${probe ? `, ${probe}` : ''} }
`,
    );
  system.releaseCloses = () => {
    for (const msg of held.splice(0)) msg.respond(codec.encode({ status: OK_STATUS }));
  };
  let subscription: Subscription | undefined;
  system.adapterUp = async () => {
    subscription = system.nc.subscribe(`${system.namespace}.adapter.v1.${adapter}.*`, {
      callback: (_error, msg) => {
        const reply = answer(
          msg.subject.slice(msg.subject.lastIndexOf('.') + 1),
          codec.decode(msg.data),
        );
        if (reply === 'hold') held.push(msg);
        else msg.respond(codec.encode(reply));
      },
    });
    await system.nc.flush();
  };
  system.adapterDown = async () => {
    subscription?.unsubscribe();
    subscription = undefined;
    await system.nc.flush();
  };

  function answer(method: string, body: Record<string, unknown>): Record<string, unknown> | 'hold' {
    switch (method) {
      case 'info':
        return { name: adapter, description: 'probe', templates: ['check'], sessionBased: true };
      case 'createSession': {
        const sessionId = `s${system.sessions.filter((s) => s.startsWith('create')).length + 1}`;
        system.sessions.push(`create ${sessionId} ${JSON.stringify(body.adapterConfig)}`);
        return { sessionId, status: OK_STATUS };
      }
      case 'closeSession': {
        system.sessions.push(`close ${String(body.sessionId)}`);
        const status = closeSession(system.sessions.filter((s) => s.startsWith('close')).length);
        return status === 'hold' ? status : { status };
      }
      default:
        return { status: OK_STATUS };
    }
  }

  beforeAll(async () => {
    system.nc = await connect({ servers: TEST_NATS_URL });
    await system.adapterUp();
    system.writeChain(1);
    const settings = { NATS_NAMESPACE: system.namespace, DATABASE_SCHEMA: system.schema };
    await provisionFromEnv({
      ...settings,
      NATS_URL: TEST_NATS_URL,
      BUS_PROVISION_SERVICES: 'enforcement-service',
    });
    const port = await freePort();
    system.service = spawnEnforcementService({
      ...settings,
      PORT: String(port),
      ENFORCEMENT_CONFIG_FILE: system.chainFile,
      ENFORCEMENT_CONFIG_WATCH_INTERVAL_MS: '3600000',
      ...env,
    });
    await ready(port);
  }, 60_000);

  afterAll(async () => {
    system.releaseCloses();
    await system.service?.stop();
    await system.nc?.close();
    await removeTestResources({ schema: system.schema, namespace: system.namespace });
    rmSync(dir, { recursive: true, force: true });
  });
  return system;
}
