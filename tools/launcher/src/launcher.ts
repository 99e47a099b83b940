import { ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { extname, join } from 'node:path';
import { inboxPrefixOf } from '@rollout/platform/nats';
import { busProvisionOptions, provisionBus } from '@rollout/provision';
import { connect } from 'nats';
import { busSetup } from './bus';
import { ensureNats } from './nats';
import { ensurePostgres, provisionDatabaseRoles } from './postgres';
import {
  LaunchError,
  Log,
  StartedDependency,
  describeExit,
  hasExited,
  portAnswers,
  sleep,
  stopChild,
} from './processes';
import {
  LauncherSettings,
  SERVICES,
  ServiceName,
  developmentToken,
  readSettings,
} from './settings';

export { LaunchError } from './processes';
export type { Log } from './processes';

export interface LaunchOptions {
  settings?: LauncherSettings;
  distRoot?: string;
  host?: string;
  extraEnv?: Record<string, string>;
  log?: Log;
  /** Aborting it while the system starts stops what was started; launch then rejects. */
  signal?: AbortSignal;
  serviceOutput?: (service: ServiceName, chunk: string) => void;
  /** Called once per service as its /readyz first answers 200, with the time since it was started. */
  onServiceReady?: (service: ServiceName, afterMs: number) => void;
}

export interface RunningSystem {
  urls: { gateway: string; docs: string };
  /** Undefined when the gateway has credentials configured (AUTH_API_KEYS, AUTH_JWT_*), which it then uses alone. */
  devToken?: string;
  natsOperator?: { user: string; password: string };
  pids(): number[];
  /** SIGTERM, then SIGKILL after the stop timeout; the others go on. */
  stopService(name: ServiceName): Promise<void>;
  /** Services first, then only the NATS and Postgres it started itself (never ones it found). Safe to call twice. */
  stop(): Promise<void>;
}

interface ServiceProcess {
  name: ServiceName;
  port: number;
  child: ChildProcess;
  /** Stopped on purpose (stopService or stop), so its exit is no news. */
  stopping: boolean;
}

const DEFAULT_HOST = '127.0.0.1';

function defaultDistRoot(): string {
  const up = join(__dirname, '..', '..', '..');
  return extname(__filename) === '.js' ? up : join(up, 'dist');
}

function defaultLog(line: string): void {
  process.stderr.write(`[launcher] ${line}\n`);
}

/**
 * NATS and Postgres are used when they answer, started when not; then the services as separate
 * processes. Rejects (after stopping what it started) when a service exits before ready.
 */
export async function launch(options: LaunchOptions = {}): Promise<RunningSystem> {
  const settings = options.settings ?? readSettings(process.env);
  const distRoot = options.distRoot ?? defaultDistRoot();
  const host = options.host ?? DEFAULT_HOST;
  const log = options.log ?? defaultLog;
  const { signal } = options;
  const devToken = developmentToken(
    { ...process.env, ...options.extraEnv },
    () => `dev_${randomBytes(24).toString('base64url')}`,
  );
  const bus = busSetup({ ...process.env, ...options.extraEnv });

  const dependencies: StartedDependency[] = [];
  const services: ServiceProcess[] = [];
  let ready = false;
  let natsStarted = false;

  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      const running = services.filter((s) => !hasExited(s.child));
      for (const service of running) service.stopping = true;
      if (running.length > 0) log(`stopping ${running.map((s) => s.name).join(', ')}`);
      await Promise.all(running.map((s) => stopService(s)));
      for (const dependency of [...dependencies].reverse()) {
        log(`stopping the ${dependency.name} it started`);
        await dependency.stop();
      }
    })());

  const stopService = async (service: ServiceProcess) => {
    service.stopping = true;
    const { killed } = await stopChild(service.child, settings.stopTimeoutMs);
    if (killed)
      log(
        `${service.name} did not stop within ${settings.stopTimeoutMs} ms (LAUNCHER_STOP_TIMEOUT_MS); killed it`,
      );
  };

  try {
    const mains = SERVICES.map((s) => ({
      ...s,
      main: join(distRoot, 'apps', s.name, 'src', 'main.js'),
    }));
    const missing = mains.find((s) => !existsSync(s.main));
    if (missing) throw new LaunchError(`cannot find ${missing.main}; build first (npm run build)`);
    await checkPortsFree(host, settings);

    signal?.throwIfAborted();
    const postgres = await ensurePostgres(settings.databaseUrl, {
      log,
      stopTimeoutMs: settings.stopTimeoutMs,
    });
    if (postgres) dependencies.push(postgres);
    const databases = await provisionDatabaseRoles(settings.databaseUrl, log);
    signal?.throwIfAborted();
    const nats = await ensureNats(settings.natsUrl, {
      log,
      stopTimeoutMs: settings.stopTimeoutMs,
      authorization: bus.natsAuthorization,
    });
    if (nats) dependencies.push(nats);
    natsStarted = nats !== undefined;
    log(
      nats
        ? `NATS: a user per service with production's permissions; the operator's is "${bus.operator.user}" (docs/bus-security.md)`
        : 'NATS: the launcher did not start this server, so it sets no users on it: whoever reaches it may publish anything (services connect as NATS_USER if set)',
    );
    log(
      `actor assertions: the gateway signs, every service verifies, with ${bus.keys === 'generated' ? 'a key pair generated for this run' : 'BUS_SIGNING_KEY and BUS_VERIFY_KEYS'}`,
    );
    // A server the launcher started is a single node: one replica is all it can hold.
    const streamReplicas = nats ? 1 : settings.streamReplicas;
    log(
      `NATS: streams and buckets with ${streamReplicas} replica${streamReplicas === 1 ? '' : 's'} (NATS_STREAM_REPLICAS)`,
    );
    signal?.throwIfAborted();
    await provision(
      settings.natsUrl,
      nats ? bus.provisioner : undefined,
      { ...process.env, ...options.extraEnv, NATS_STREAM_REPLICAS: String(streamReplicas) },
      log,
    );
    signal?.throwIfAborted();

    log(`starting ${SERVICES.map((s) => s.name).join(', ')}`);
    for (const service of mains) {
      const port = settings.ports[service.name];
      const database = databases[service.name];
      const child = fork(service.main, [], {
        execArgv: [],
        // The IPC channel lets a service notice that the launcher is gone (even SIGKILLed) and
        // stop itself: the kernel closes the channel, the service gets 'disconnect'.
        stdio: [
          'ignore',
          options.serviceOutput ? 'pipe' : 'inherit',
          options.serviceOutput ? 'pipe' : 'inherit',
          'ipc',
        ],
        // Its own process group: a Ctrl-C in the terminal reaches only the launcher, which
        // stops the services first and NATS/Postgres after them.
        detached: true,
        env: {
          ...withoutDatabase({ ...process.env, ...options.extraEnv }),
          HOST: host,
          PORT: String(port),
          NATS_URL: settings.natsUrl,
          // Its own role, which owns its schema and nothing else; none for the gateway.
          ...(database
            ? {
                DATABASE_URL: database.url,
                DATABASE_PASSWORD: database.password,
                DATABASE_SCHEMA: database.schema,
              }
            : {}),
          ...bus.serviceEnv(service.name, nats !== undefined),
          ...(devToken ? { AUTH_DEV_TOKEN: devToken } : {}),
        },
      });
      const output = options.serviceOutput;
      if (output) {
        child.stdout?.on('data', (chunk: Buffer) => output(service.name, chunk.toString()));
        child.stderr?.on('data', (chunk: Buffer) => output(service.name, chunk.toString()));
      }
      const entry: ServiceProcess = { name: service.name, port, child, stopping: false };
      child.once('exit', (code, exitSignal) => {
        if (ready && !entry.stopping) {
          log(
            `${service.name} exited (${describeExit(code, exitSignal)}); the other services keep running`,
          );
        }
      });
      services.push(entry);
    }
    await waitUntilReady(services, host, settings.readyTimeoutMs, signal, options.onServiceReady);
  } catch (error) {
    await stop();
    throw error;
  }
  ready = true;

  const gateway = `http://${host.includes(':') ? `[${host}]` : host}:${settings.ports.gateway}`;
  return {
    urls: { gateway, docs: `${gateway}/docs` },
    devToken,
    natsOperator: natsStarted ? bus.operator : undefined,
    pids: () => [
      ...services
        .filter((s) => !hasExited(s.child) && s.child.pid !== undefined)
        .map((s) => s.child.pid as number),
      ...dependencies.flatMap((d) => d.pids()),
    ],
    stopService: async (name) => {
      const service = services.find((s) => s.name === name);
      if (!service) throw new Error(`no service named ${name}`);
      if (hasExited(service.child)) return;
      log(`stopping ${name}`);
      await stopService(service);
    },
    stop,
  };
}

/** The environment without the launcher's own (admin) database credentials. */
function withoutDatabase(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const rest = { ...env };
  delete rest.DATABASE_URL;
  delete rest.DATABASE_PASSWORD;
  delete rest.DATABASE_SCHEMA;
  return rest;
}

/** On a server it found, as NATS_PROVISION_USER if set (a server without users otherwise). */
async function provision(
  natsUrl: string,
  provisioner: { user: string; password: string } | undefined,
  env: NodeJS.ProcessEnv,
  log: Log,
): Promise<void> {
  let options;
  try {
    options = busProvisionOptions(env);
  } catch (error) {
    throw new LaunchError((error as Error).message);
  }
  const user = provisioner?.user ?? env.NATS_PROVISION_USER;
  const pass = provisioner?.password ?? env.NATS_PROVISION_PASSWORD;
  const nc = await connect({
    servers: natsUrl,
    ...(user ? { user, pass, inboxPrefix: inboxPrefixOf(user) } : {}),
  });
  try {
    const done = await provisionBus(nc, options);
    log(
      `NATS: provisioned ${done.streams.length} streams, ${done.consumers.length} durable consumers and ${done.buckets.length} bucket(s)${user ? ` as "${user}"` : ''}`,
    );
    // A fresh server is created from scratch every run; what was repaired is worth a line each.
    for (const change of done.changes.filter((c) => !c.startsWith('created ')))
      log(`NATS: ${change}`);
  } catch (error) {
    throw new LaunchError(
      `provisioning the streams failed${user ? ` as "${user}"` : ''}: ${(error as Error).message}`,
    );
  } finally {
    await nc.close();
  }
}

async function checkPortsFree(host: string, settings: LauncherSettings): Promise<void> {
  const taken = await Promise.all(
    SERVICES.map(async (s) =>
      (await portAnswers(host, settings.ports[s.name], 500)) ? s : undefined,
    ),
  );
  const busy = taken.find((s) => s !== undefined);
  if (busy) {
    throw new LaunchError(
      `port ${settings.ports[busy.name]} (${busy.portVar}, for ${busy.name}) is already in use on ${host}; ` +
        `is the system already running? Stop what uses it, or set ${busy.portVar} to a free port`,
    );
  }
}

/** Fails at once naming a service that exits, and at the deadline with what each last answered. */
function waitUntilReady(
  services: ServiceProcess[],
  host: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  onReady: ((service: ServiceName, afterMs: number) => void) | undefined,
): Promise<void> {
  const started = Date.now();
  const pending = new Map(services.map((s) => [s, 'no answer yet']));
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const listeners = services.map((service) => {
      const onExit = (code: number | null, exitSignal: NodeJS.Signals | null) =>
        finish(
          new LaunchError(
            `${service.name} exited (${describeExit(code, exitSignal)}) before the system was ready; its log above says why`,
          ),
        );
      service.child.once('exit', onExit);
      return () => service.child.off('exit', onExit);
    });
    const onAbort = () =>
      finish(signal?.reason instanceof Error ? signal.reason : new LaunchError('start aborted'));
    signal?.addEventListener('abort', onAbort);
    const timer = setTimeout(() => {
      const waiting = [...pending].map(([s, problem]) => `${s.name} (${problem})`).join(', ');
      finish(
        new LaunchError(`not ready within ${timeoutMs} ms (LAUNCHER_READY_TIMEOUT_MS): ${waiting}`),
      );
    }, timeoutMs);

    function finish(error?: Error) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      listeners.forEach((remove) => remove());
      if (error) reject(error);
      else resolve();
    }

    const exitedAlready = services.find((s) => hasExited(s.child));
    if (exitedAlready) {
      const { exitCode, signalCode } = exitedAlready.child;
      finish(
        new LaunchError(
          `${exitedAlready.name} exited (${describeExit(exitCode, signalCode)}) before the system was ready`,
        ),
      );
      return;
    }
    if (signal?.aborted) return onAbort();

    void (async () => {
      while (!settled) {
        await Promise.all(
          [...pending.keys()].map(async (service) => {
            const problem = await probeReady(host, service.port);
            if (problem !== undefined) pending.set(service, problem);
            else if (pending.delete(service)) onReady?.(service.name, Date.now() - started);
          }),
        );
        if (pending.size === 0) finish();
        else await sleep(200);
      }
    })();
  });
}

function probeReady(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    // agent: false: one connection per probe, closed after it, so nothing lingers.
    const request = httpGet(
      { host, port, path: '/readyz', agent: false, timeout: 2_000 },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body = (body + chunk).slice(0, 300)));
        response.on('end', () =>
          resolve(
            response.statusCode === 200
              ? undefined
              : `/readyz answered ${response.statusCode}: ${body.trim()}`,
          ),
        );
        response.on('error', (error) => resolve(error.message));
      },
    );
    request.on('timeout', () => request.destroy(new Error('/readyz did not answer within 2 s')));
    request.on('error', (error: NodeJS.ErrnoException) =>
      resolve(error.code === 'ECONNREFUSED' ? 'not listening yet' : error.message),
    );
  });
}
