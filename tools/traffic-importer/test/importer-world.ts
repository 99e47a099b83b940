import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import {
  EXPERIMENT_STATE_BUCKET,
  STATE_POSITION_KEY,
  TRAFFIC_STREAM,
  TRAFFIC_STREAM_LIMITS,
  TRAFFIC_STREAM_SUBJECTS,
  TrafficEvent,
  policyStateKey,
} from '@rollout/contracts';
import { NatsNamespace } from '@rollout/platform/nats';
import { declareJetStream } from '@rollout/provision';
import { JSONCodec, NatsConnection } from 'nats';

/** What the importer's specs share: a TRAFFIC stream and a state bucket of their own namespace, and the command. */
export async function declareImporterBus(nc: NatsConnection, ns: NatsNamespace): Promise<void> {
  // The provisioning step declares both; these tests declare them as it does, smaller.
  await declareJetStream(nc, ns, {
    streams: [
      {
        name: TRAFFIC_STREAM,
        subjects: [TRAFFIC_STREAM_SUBJECTS],
        maxAgeMs: 3_600_000,
        maxBytes: 64 * 1024 ** 2,
        duplicateWindowMs: TRAFFIC_STREAM_LIMITS.duplicateWindowMs,
      },
    ],
    kv: [{ bucket: EXPERIMENT_STATE_BUCKET, history: 1 }],
  });
}

export async function removeImporterBus(nc: NatsConnection, ns: NatsNamespace): Promise<void> {
  const jsm = await nc.jetstreamManager();
  for (const stream of [ns.stream(TRAFFIC_STREAM), `KV_${ns.bucket(EXPERIMENT_STATE_BUCKET)}`])
    await jsm.streams.delete(stream).catch(() => undefined);
}

/**
 * Writes live policies into the state bucket as the experiment-service's state relay does (the
 * policy's last event under its key), and the position key that says the bucket is filled.
 */
export async function putLivePolicies(
  nc: NatsConnection,
  ns: NatsNamespace,
  project: string,
  policies: string[],
  location = 'global',
): Promise<void> {
  const kv = await nc.jetstream().views.kv(ns.bucket(EXPERIMENT_STATE_BUCKET));
  const codec = JSONCodec();
  for (const policy of policies) {
    const name = `projects/${project}/locations/${location}/firewallPolicies/${policy}`;
    await kv.put(
      policyStateKey(project, location, policy),
      codec.encode({
        id: `event-${policy}`,
        type: 'PolicyCreated',
        subject: name,
        version: 1,
        time: new Date().toISOString(),
        actor: 'test',
        state: { name, rules: [] },
      }),
    );
  }
  await kv.put(STATE_POSITION_KEY, new Uint8Array());
}

/** Every event on a policy's subject of TRAFFIC, in order. */
export async function eventsOn(
  nc: NatsConnection,
  ns: NatsNamespace,
  policy: string,
  project = 'acme',
): Promise<TrafficEvent[]> {
  const jsm = await nc.jetstreamManager();
  const stream = ns.stream(TRAFFIC_STREAM);
  const subject = ns.subject(`traffic.v1.${project}.global.${policy}`);
  const { state } = await jsm.streams.info(stream, { subjects_filter: subject });
  const found: TrafficEvent[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    const message = await jsm.streams.getMessage(stream, { seq }).catch(() => undefined);
    if (message?.subject === subject) found.push(message.json<TrafficEvent>());
  }
  return found;
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `rollout-traffic import …` from its sources, as a process of its own. */
export function startCli(args: string[], env: NodeJS.ProcessEnv): ChildProcessWithoutNullStreams {
  return spawn(
    process.execPath,
    ['-r', '@swc-node/register', join(__dirname, '..', 'src', 'main.ts'), 'import', ...args],
    { cwd: join(__dirname, '..', '..', '..'), env: { ...process.env, ...env } },
  );
}

/** What a started command printed, once it has exited. */
export function finished(child: ChildProcessWithoutNullStreams): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs the command to its end with `stdin` as its standard input. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, stdin = ''): Promise<CliRun> {
  const child = startCli(args, env);
  const done = finished(child);
  child.stdin.end(stdin);
  return done;
}
