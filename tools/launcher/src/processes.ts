import { ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { delimiter, extname, join } from 'node:path';

export type Log = (line: string) => void;

export interface StartedDependency {
  name: string;
  pids(): number[];
  stop(): Promise<void>;
}

/** A problem the user can fix; main prints the message alone, without a stack. */
export class LaunchError extends Error {
  override name = 'LaunchError';
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function portAnswers(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host, port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `killed by ${signal}` : `exit code ${code}`;
}

export function exited(child: ChildProcess): Promise<void> {
  if (hasExited(child)) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** SIGTERM, then SIGKILL after `timeoutMs`; resolves with whether it had to be killed. */
export async function stopChild(
  child: ChildProcess,
  timeoutMs: number,
): Promise<{ killed: boolean }> {
  if (hasExited(child)) return { killed: false };
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  child.kill('SIGTERM');
  await exited(child);
  clearTimeout(timer);
  return { killed };
}

/** Also searches the sbin dirs where Debian's nats-server lives, which a user's PATH may lack. */
export function commandOnPath(
  command: string,
  searchPath = [process.env.PATH ?? '', '/usr/local/sbin', '/usr/sbin', '/sbin'].join(delimiter),
): string | undefined {
  return searchPath
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, command))
    .find((candidate) => {
      try {
        accessSync(candidate, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}

/** From the build output a sibling is `.js`; from the sources (tests only) `.ts` via @swc-node/register. */
export function siblingScript(name: string): { path: string; execArgv: string[] } {
  if (extname(__filename) === '.js') return { path: join(__dirname, `${name}.js`), execArgv: [] };
  return { path: join(__dirname, `${name}.ts`), execArgv: ['-r', '@swc-node/register'] };
}
