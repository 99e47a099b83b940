/**
 * `npm start`: the whole system on this machine (see the README, "Quick start"). Reads the env,
 * starts everything through `launch`, prints where the gateway is, and stops it all on
 * Ctrl-C / SIGTERM.
 */
import { LaunchError, RunningSystem, launch } from './launcher';
import { LauncherSettings, SettingsError, readSettings } from './settings';

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
    process.stderr.write(`[launcher] ${signal}: stopping everything (${signal} again to exit at once)\n`);
    if (!system) {
      starting.abort(); // launch stops what it has started so far, then rejects
      return;
    }
    system.stop().then(
      () => process.exit(0),
      (error: unknown) => fail(`stopping failed: ${error instanceof Error ? error.message : String(error)}`),
    );
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);

  try {
    system = await launch({ settings, signal: starting.signal });
  } catch (error) {
    if (starting.signal.aborted) process.exit(0);
    if (error instanceof LaunchError || error instanceof SettingsError) fail(error.message);
    fail(error instanceof Error ? (error.stack ?? error.message) : String(error));
  }

  console.log(
    [
      '',
      `Policy rollout is running. The gateway is at ${system.urls.gateway}`,
      `  API:   ${system.urls.gateway}/v1/services`,
      `  Docs:  ${system.urls.docs}`,
      `  Console: ${system.urls.gateway}/console`,
      ...(system.devToken
        ? [
            `  Token: ${system.devToken}   (development admin; send "Authorization: Bearer <token>")`,
            '',
            `  curl -H "Authorization: Bearer ${system.devToken}" ${system.urls.gateway}/v1/services`,
          ]
        : ['  Auth:  the credentials of AUTH_API_KEYS / AUTH_JWT_* (no development token while they are set)']),
      ...(system.natsOperator
        ? ['', `  NATS:  a user per service; operator: nats --user ${system.natsOperator.user} --password ${system.natsOperator.password} …`]
        : []),
      '',
      'Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
}

void main();
