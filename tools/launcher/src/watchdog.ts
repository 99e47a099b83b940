/**
 * A tiny watchdog process that runs one command (nats-server) on behalf of the launcher and
 * makes sure it never outlives the launcher.
 *
 * The trick: the launcher forks this script with an IPC channel. The kernel closes that
 * channel when the launcher exits for any reason, SIGKILL included, and Node then emits
 * 'disconnect' here; we stop the command (SIGTERM, SIGKILL after a grace period), remove the
 * command's temporary directory (the launcher can no longer do it) and exit. A normal stop is
 * a SIGTERM from the launcher, which stops the command the same way. When the command exits
 * by itself, so does the watchdog, with the command's exit code, so the launcher sees it.
 *
 * argv[2]: JSON WatchdogSpec. Messages to the parent: { pid } once the command is spawned.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { constants } from 'node:os';

export interface WatchdogSpec {
  command: string;
  args: string[];
  /** Removed when the launcher goes away without stopping us (else the launcher removes it). */
  tempDir?: string;
  /** How long the command gets to exit after SIGTERM before SIGKILL. */
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
