/**
 * Runs nats-server so that it never outlives the launcher: the kernel closes our IPC channel when
 * the launcher dies (SIGKILL included), and on 'disconnect' we stop the command and remove its
 * directory. It exits with the command's code, so the launcher sees it. argv[2]: JSON WatchdogSpec.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { constants } from 'node:os';

export interface WatchdogSpec {
  command: string;
  args: string[];
  /** Removed when the launcher goes away without stopping us (else the launcher removes it). */
  tempDir?: string;
  graceMs: number;
}

export interface WatchdogMessage {
  pid: number;
}

function main(): void {
  const spec = JSON.parse(process.argv[2] ?? '') as WatchdogSpec;
  const child = spawn(spec.command, spec.args, { stdio: ['ignore', 'ignore', 'inherit'] });
  let orphaned = false;

  child.once('error', (error) => {
    process.stderr.write(`watchdog: cannot run ${spec.command}: ${error.message}\n`);
    process.exit(127);
  });
  child.once('exit', (code, signal) => {
    if (orphaned && spec.tempDir) rmSync(spec.tempDir, { recursive: true, force: true });
    process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0));
  });

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), spec.graceMs).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('disconnect', () => {
    orphaned = true;
    stop();
  });
  if (child.pid !== undefined) process.send?.({ pid: child.pid } satisfies WatchdogMessage);
}

if (require.main === module) main();
