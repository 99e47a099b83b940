import { ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  LaunchError,
  Log,
  StartedDependency,
  commandOnPath,
  describeExit,
  hasExited,
  isAlive,
  portAnswers,
  siblingScript,
  sleep,
  stopChild,
} from './processes';
import { hostAndPort, isLoopback, natsInstallHelp, redact } from './settings';
import type { WatchdogMessage, WatchdogSpec } from './watchdog';

export interface NatsOptions {
  log: Log;
  stopTimeoutMs: number;
  startTimeoutMs?: number;
  /** `:`-separated; default: PATH and the sbin dirs. */
  searchPath?: string;
  authorization?: string;
}

/** Starts nats-server under the watchdog (so it never outlives the launcher) only when nothing answers at `natsUrl`. */
export async function ensureNats(
  natsUrl: string,
  options: NatsOptions,
): Promise<StartedDependency | undefined> {
  const { log } = options;
  const { host, port } = hostAndPort(natsUrl, 4222);
  if (await portAnswers(host, port)) {
    log(`NATS: using the server at ${redact(natsUrl)}`);
    return undefined;
  }
  if (!isLoopback(host)) {
    throw new LaunchError(
      `nothing answers at NATS_URL ${redact(natsUrl)}; its host is not a loopback address, so the launcher does not start a server there`,
    );
  }
  const binary = commandOnPath('nats-server', options.searchPath);
  if (!binary) throw new LaunchError(natsInstallHelp(natsUrl));
  return startNatsServer(binary, host, port, options);
}

export async function startNatsServer(
  binary: string,
  host: string,
  port: number,
  options: NatsOptions,
): Promise<StartedDependency> {
  const tempDir = mkdtempSync(join(tmpdir(), 'policy-rollout-nats-'));
  const logFile = join(tempDir, 'nats-server.log');
  const configFile = join(tempDir, 'nats-server.conf');
  writeFileSync(configFile, options.authorization ?? '', { mode: 0o600 });
  options.log(
    `NATS: nothing answers at ${host}:${port}; starting ${binary} -js there (store in ${tempDir})`,
  );
  const spec: WatchdogSpec = {
    command: binary,
    args: [
      '-c',
      configFile,
      '-js',
      '-a',
      host,
      '-p',
      String(port),
      '-sd',
      join(tempDir, 'jetstream'),
      '-l',
      logFile,
    ],
    tempDir,
    graceMs: options.stopTimeoutMs,
  };
  const script = siblingScript('watchdog');
  const watchdog = fork(script.path, [JSON.stringify(spec)], {
    execArgv: script.execArgv,
    // Its own process group: a Ctrl-C in the terminal reaches only the launcher, which then
    // stops everything in order (services first, NATS after them).
    detached: true,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  let serverPid: number | undefined;
  watchdog.on('message', (message: WatchdogMessage) => (serverPid = message.pid));

  let stopped: Promise<void> | undefined;
  const dependency: StartedDependency = {
    name: 'nats-server',
    pids: () =>
      [watchdog.pid, serverPid].filter((pid): pid is number => pid !== undefined && isAlive(pid)),
    stop: () =>
      (stopped ??= (async () => {
        // The watchdog SIGKILLs the server after graceMs; we SIGKILL the watchdog a bit later.
        await stopChild(watchdog, options.stopTimeoutMs + 2_000);
        if (serverPid !== undefined && isAlive(serverPid)) process.kill(serverPid, 'SIGKILL');
        rmSync(tempDir, { recursive: true, force: true });
      })()),
  };

  try {
    await waitUntilListening(watchdog, host, port, options.startTimeoutMs ?? 30_000);
  } catch (error) {
    const tail = lastLines(logFile, 5);
    await dependency.stop();
    throw new LaunchError(
      `nats-server did not start: ${(error as Error).message}${tail ? `\n${tail}` : ''}`,
    );
  }
  options.log(`NATS: nats-server is listening on ${host}:${port}`);
  return dependency;
}

async function waitUntilListening(
  child: ChildProcess,
  host: string,
  port: number,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (hasExited(child))
      throw new Error(`it exited (${describeExit(child.exitCode, child.signalCode)})`);
    if (await portAnswers(host, port, 500)) return;
    if (Date.now() > deadline)
      throw new Error(`nothing listens on ${host}:${port} after ${timeoutMs} ms`);
    await sleep(100);
  }
}

function lastLines(file: string, count: number): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-count).join('\n');
  } catch {
    return '';
  }
}
