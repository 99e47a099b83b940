import { ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Log, StartedDependency, ensureNats, ensurePostgres, stopChild } from './dependencies';
import { LauncherSettings, SERVICES, ServiceName } from './settings';

export interface LaunchOptions {
  settings: LauncherSettings;
  /** Where the build output is (the directory holding `apps/`). */
  distRoot: string;
  /** Env for every service on top of the launcher's own (e.g. NATS_NAMESPACE, LOG_LEVEL). */
  extraEnv?: Record<string, string>;
  log?: Log;
}

export interface RunningSystem {
  urls: { gateway: string; docs: string };
  /** The development admin token the gateway accepts (AUTH_DEV_TOKEN). */
  devToken: string;
  /** Every process the launcher started and that still runs. */
  pids(): number[];
  /** Stops one service (SIGTERM, then SIGKILL after the stop timeout); the others go on. */
  stopService(name: ServiceName): Promise<void>;
  /** Stops every service, then what the launcher started for them. Safe to call twice. */
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';

async function waitUntilReady(
  name: string,
  port: number,
  child: ChildProcess,
  deadline: number,
): Promise<void> {
  let lastProblem = 'no answer yet';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before it was ready`);
    }
    try {
      const response = await fetch(`http://${HOST}:${port}/readyz`, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return;
      lastProblem = `/readyz answered ${response.status}: ${await response.text()}`;
    } catch (error) {
      lastProblem = error instanceof Error ? error.message : String(error);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${name} was not ready in time (${lastProblem})`);
}

/**
 * Starts the whole system on this machine: NATS and Postgres (used when they answer, started
 * when they do not), then the five services as separate processes, as in production; resolves
 * when every service's /readyz answers 200.
 */
export async function launch(options: LaunchOptions): Promise<RunningSystem> {
  const { settings } = options;
  const log: Log = options.log ?? ((line) => process.stderr.write(`[launcher] ${line}\n`));
  const dependencies: StartedDependency[] = [];
  const services = new Map<ServiceName, ChildProcess>();
  const devToken = process.env.AUTH_DEV_TOKEN || `dev_${randomBytes(24).toString('base64url')}`;
  let stopping = false;

  const stopServices = async (names: ServiceName[]) => {
    // The gateway first, so no new request reaches a service that is going away.
    await Promise.all(names.map((name) => services.get(name)).filter(Boolean).map((c) => stopChild(c!, settings.stopTimeoutMs)));
  };
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await stopServices(['gateway']);
    await stopServices(SERVICES.map((s) => s.name).filter((n) => n !== 'gateway'));
    for (const dependency of dependencies.reverse()) await dependency.stop();
  };

  try {
    const postgres = await ensurePostgres(settings.databaseUrl, log);
    if (postgres.started) dependencies.push(postgres.started);
    const nats = await ensureNats(settings.natsUrl, log);
    if (nats) dependencies.push(nats);

    for (const service of SERVICES) {
      const child = fork(join(options.distRoot, 'apps', service.name, 'src', 'main.js'), [], {
        // The IPC channel lets a service notice that the launcher is gone and stop itself.
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        env: {
          ...process.env,
          ...options.extraEnv,
          HOST,
          PORT: String(settings.ports[service.name]),
          NATS_URL: settings.natsUrl,
          DATABASE_URL: postgres.databaseUrl,
          AUTH_DEV_TOKEN: devToken,
        },
      });
      child.once('exit', (code, signal) => {
        if (!stopping) log(`${service.name} exited (${signal ?? `code ${code}`}); the other services keep running`);
      });
      services.set(service.name, child);
    }
    const deadline = Date.now() + settings.readyTimeoutMs;
    await Promise.all(
      SERVICES.map((s) => waitUntilReady(s.name, settings.ports[s.name], services.get(s.name)!, deadline)),
    );
  } catch (error) {
    await stop();
    throw error;
  }

  const gateway = `http://${HOST}:${settings.ports.gateway}`;
  return {
    urls: { gateway, docs: `${gateway}/docs` },
    devToken,
    pids: () =>
      [...services.values(), ...dependencies.map((d) => d.process)]
        .filter((c) => c.exitCode === null && c.signalCode === null && c.pid !== undefined)
        .map((c) => c.pid!),
    stopService: (name) => stopServices([name]),
    stop,
  };
}
