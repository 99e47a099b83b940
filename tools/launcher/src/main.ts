/**
 * `npm start` (README, "Quick start"). On a terminal (or LOG_FORMAT=pretty) it shows the services'
 * warnings and errors readably, their full JSON in a file each; LOG_FORMAT=json passes it through.
 */
import { resolve } from 'node:path';
import { LOCAL_INSTANCE_FILE, LocalInstance } from '@rollout/platform/config';
import { LaunchError, RunningSystem, launch } from './launcher';
import { removeOwnedFile, writeOwnedFile } from './owned-files';
import { ConsoleOutput, consoleOutput } from './service-logs';
import {
  DEV_NATS_OPERATOR_FILE,
  DEV_TOKEN_FILE,
  LauncherSettings,
  SettingsError,
  databaseName,
  hostAndPort,
  readSettings,
  redact,
} from './settings';

function fail(line: string): never {
  process.stderr.write(`launcher: ${line}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  let settings: LauncherSettings;
  try {
    settings = readSettings(process.env);
  } catch (error) {
    if (error instanceof SettingsError) fail(`invalid configuration: ${error.message}`);
    throw error;
  }

  const pretty =
    settings.logFormat === 'pretty' ||
    (settings.logFormat === undefined && process.stderr.isTTY === true);
  const output: ConsoleOutput | undefined = pretty
    ? consoleOutput(resolve(settings.logDir), (line) => process.stderr.write(`${line}\n`))
    : undefined;
  // `npm run demo` (and other local tools) read the development token here while the system runs.
  // Another launcher of this checkout may own them: only what this one wrote is removed.
  const written: { path: string; content: string }[] = [];
  const leave = (file: string, content: string) => {
    const path = resolve(file);
    const outcome = writeOwnedFile(path, content);
    if (outcome.written) written.push({ path, content });
    else
      process.stderr.write(
        `[launcher] ${file} belongs to the launcher running as pid ${outcome.ownerPid}: left as it is (this one's is printed below)\n`,
      );
  };
  const exit = (code: number) => {
    for (const { path, content } of written) removeOwnedFile(path, content);
    void (output?.close() ?? Promise.resolve()).finally(() => process.exit(code));
  };

  const starting = new AbortController();
  let system: RunningSystem | undefined;
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) {
      // The processes it started notice that the launcher is gone and stop by themselves.
      process.stderr.write(`[launcher] ${signal} again: exiting now\n`);
      process.exit(1);
    }
    process.stderr.write(
      `[launcher] ${signal}: stopping everything (${signal} again to exit at once)\n`,
    );
    if (!system) {
      starting.abort(); // launch stops what it has started so far, then rejects
      return;
    }
    system.stop().then(
      () => exit(0),
      (error: unknown) =>
        fail(`stopping failed: ${error instanceof Error ? error.message : String(error)}`),
    );
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);

  try {
    system = await launch({
      settings,
      signal: starting.signal,
      serviceOutput: output?.serviceOutput,
      onServiceReady: output
        ? (service, afterMs) =>
            process.stderr.write(
              `[launcher] ${service} is ready (${(afterMs / 1000).toFixed(1)} s)\n`,
            )
        : undefined,
    });
  } catch (error) {
    await output?.close();
    if (starting.signal.aborted) process.exit(0);
    if (error instanceof LaunchError || error instanceof SettingsError) fail(error.message);
    fail(error instanceof Error ? (error.stack ?? error.message) : String(error));
  }

  // Where the demo and the importer find this instance by default (the first launcher of a checkout).
  const instance: LocalInstance = {
    apiUrl: system.urls.gateway,
    natsUrl: settings.natsUrl,
    namespace: process.env.NATS_NAMESPACE ?? '',
    database: databaseName(settings.databaseUrl),
    pid: process.pid,
  };
  leave(LOCAL_INSTANCE_FILE, `${JSON.stringify(instance, null, 2)}\n`);
  if (system.devToken) leave(DEV_TOKEN_FILE, `${system.devToken}\n`);
  if (system.natsOperator)
    leave(DEV_NATS_OPERATOR_FILE, `${JSON.stringify(system.natsOperator)}\n`);

  console.log(
    [
      '',
      `Policy rollout is running. The gateway is at ${system.urls.gateway}`,
      `  API:   ${system.urls.gateway}/v1/services`,
      `  Docs:  ${system.urls.docs}`,
      `  Console: ${system.urls.gateway}/console`,
      `  NATS:  ${redact(settings.natsUrl)}, namespace ${instance.namespace ? `"${instance.namespace}"` : 'none'} (NATS_NAMESPACE)`,
      `  Postgres: database "${instance.database}" on ${Object.values(hostAndPort(settings.databaseUrl, 5432)).join(':')} (DATABASE_URL)`,
      ...(system.devToken
        ? [
            `  Token: ${system.devToken}   (development admin; send "Authorization: Bearer <token>")`,
            '',
            `  curl -H "Authorization: Bearer ${system.devToken}" ${system.urls.gateway}/v1/services`,
          ]
        : [
            '  Auth:  the credentials of AUTH_API_KEYS / AUTH_JWT_* (no development token while they are set)',
          ]),
      ...(system.natsOperator
        ? [
            '',
            `  NATS:  a user per service; operator: nats --user ${system.natsOperator.user} --password ${system.natsOperator.password} …`,
          ]
        : []),
      ...(output
        ? ['', `  Logs:  ${output.dir}/<service>.log (JSON); warnings and errors show here`]
        : []),
      '',
      '  Try it: npm run demo (in another terminal) fills a sample preview within a minute.',
      written.some((w) => w.path === resolve(LOCAL_INSTANCE_FILE))
        ? `  The demo and rollout-traffic import find this instance in ${LOCAL_INSTANCE_FILE}.`
        : `  Another launcher owns ${LOCAL_INSTANCE_FILE}: give the demo and the importer GATEWAY_URL=${system.urls.gateway} NATS_URL=${redact(settings.natsUrl)} NATS_NAMESPACE=${instance.namespace}`,
      `  Remove this instance's streams, buckets, database and roles once stopped: npm run teardown -- --namespace ${instance.namespace ? instance.namespace : "''"} --database ${instance.database}`,
      '',
      'Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
}

void main();
