/** The services the evaluator bench runs as processes, and what it reads of them from /proc. */
import { ChildProcess, execSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { PROFILE_DIR, ROOT, out } from './config';

/**
 * A service as production runs it: the build output (npm run build, once per run; running the
 * TypeScript through a loader would add its compiler to every figure of memory), with the Node
 * options of its Kubernetes config (the evaluator's heap cap).
 */
export function startApp(
  app: string,
  env: Record<string, string>,
  root = ROOT,
  profileName?: string,
): ChildProcess {
  return spawn(
    process.execPath,
    [
      ...(process.env.BENCH_PROFILE === app
        ? [
            '--cpu-prof',
            `--cpu-prof-dir=${PROFILE_DIR}`,
            ...(profileName ? [`--cpu-prof-name=${profileName}`] : []),
          ]
        : []),
      join(root, `dist/apps/${app}/src/main.js`),
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        ...env,
        NODE_OPTIONS: deployedNodeOptions(app),
        NODE_ENV: 'development',
        LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
}

/** NODE_OPTIONS of a service's deploy/k8s/base/<app>/config.env, if it sets any. */
function deployedNodeOptions(app: string): string {
  try {
    return (
      /^NODE_OPTIONS=(.*)$/m.exec(
        readFileSync(join(ROOT, `deploy/k8s/base/${app}/config.env`), 'utf8'),
      )?.[1] ?? ''
    );
  } catch {
    return '';
  }
}

/** CPU seconds of a pid (Linux /proc; user + system), 0 once it is gone. */
export function cpuOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Peak and current resident memory (VmHWM, VmRSS) and CPU seconds of a process, from /proc. */
export function processStats(child: ChildProcess): {
  peakMb: number;
  rssMb: number;
  cpuSeconds: number;
} {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return {
    peakMb: kb('VmHWM') / 1024,
    rssMb: kb('VmRSS') / 1024,
    cpuSeconds: cpuOf(child.pid as number),
  };
}

/**
 * CPU seconds the evaluator's Postgres backends (application_name = 'evaluator') used since the
 * first sample. Sampled now and then, so a backend the pool opens later is counted from its
 * start, and one it closes keeps the time last seen.
 */
export class BackendCpu {
  private readonly first = new Map<number, number>();
  private readonly last = new Map<number, number>();
  private sampled = false;
  private sampledAt = 0;

  constructor(private readonly pg: Client) {}

  async sample(): Promise<void> {
    const pids: number[] = (
      await this.pg.query(`SELECT pid FROM pg_stat_activity WHERE application_name = 'evaluator'`)
    ).rows.map((r) => r.pid);
    for (const pid of pids) {
      const cpu = cpuOf(pid);
      if (!this.first.has(pid)) this.first.set(pid, this.sampled ? 0 : cpu);
      if (cpu > 0) this.last.set(pid, cpu);
    }
    this.sampled = true;
    this.sampledAt = performance.now();
  }

  /** Samples when the last sample is older than a second. */
  async maybeSample(): Promise<void> {
    if (performance.now() - this.sampledAt >= 1000) await this.sample();
  }

  get seconds(): number {
    let total = 0;
    for (const [pid, first] of this.first)
      total += Math.max(0, (this.last.get(pid) ?? first) - first);
    return total;
  }
}

/** Builds `revision` in a temporary worktree sharing node_modules; returns its root. */
export function buildBaseline(revision: string): string {
  const root = join(tmpdir(), `rollout-bench-baseline-${revision.replace(/[^\w.-]/g, '_')}`);
  out(`building baseline ${revision} in ${root}…`);
  execSync(
    `git worktree add --force --detach ${JSON.stringify(root)} ${JSON.stringify(revision)}`,
    { cwd: ROOT, stdio: 'ignore' },
  );
  execSync(
    `ln -sfn ${JSON.stringify(join(ROOT, 'node_modules'))} ${JSON.stringify(join(root, 'node_modules'))}`,
  );
  execSync('npm run build', { cwd: root, stdio: 'ignore' });
  return root;
}

export async function stop(child: ChildProcess | undefined) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
