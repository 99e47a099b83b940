/**
 * `npm start`: the whole system on this machine. See README "Quick start".
 */
import { join } from 'node:path';
import { launch } from './launcher';
import { SettingsError, readSettings } from './settings';

async function main() {
  let settings;
  try {
    settings = readSettings(process.env);
  } catch (error) {
    if (error instanceof SettingsError) {
      process.stderr.write(`launcher: invalid configuration: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const system = await launch({ settings, distRoot: join(__dirname, '..', '..', '..') }).catch((error) => {
    process.stderr.write(`launcher: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`[launcher] ${signal}: stopping every service\n`);
    void system.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  console.log(
    [
      '',
      'Policy rollout is running.',
      `  API:   ${system.urls.gateway}/v1/services`,
      `  Docs:  ${system.urls.docs}`,
      `  Token: ${system.devToken}   (development admin; send "Authorization: Bearer <token>")`,
      '',
      `  curl -H "Authorization: Bearer ${system.devToken}" ${system.urls.gateway}/v1/services`,
      '',
      'Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
}

void main();
