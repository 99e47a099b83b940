import {
  REPO_ROOT,
  TEST_NATS_URL,
  TEST_POSTGRES_URL,
  eventually,
  freePort,
  removeTestResources,
  uniqueName,
} from '@rollout/testing/kit';
import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JSONCodec, NatsConnection, connect } from 'nats';

/**
 * SIGHUP reloads the chain file: an adapter handler whose params changed gets a new session and
 * its old one is closed once the new one is open; an invalid (or empty, half written) file is
 * refused and the service keeps running the old chain; SIGTERM closes the last session. The file
 * watch is set to an hour, so only SIGHUP can reload here. The adapter is a few lines of the raw
 * `nats` client on the real server.
 */
const codec = JSONCodec<Record<string, unknown>>();
const OK = { code: 200, status: 'OK', message: '', details: [] };

const chain = (adapter: string, version: number) => `
enabled_filters: [probe]
filters:
  probe: { adapter: ${adapter}, params: { version: ${version} }, templates: [check], timeout_ms: 1000 }
`;

describe('enforcement-service chain reload', () => {
  const dir = mkdtempSync(join(tmpdir(), 'enforcement-reload-'));
  const file = join(dir, 'enforcement.yaml');
  const namespace = uniqueName();
  const schema = uniqueName('it_');
  const adapter = uniqueName('reload-');
  const sessions: string[] = [];
  let nc: NatsConnection;
  let child: ChildProcess;
  let logs = '';

  beforeAll(async () => {
    nc = await connect({ servers: TEST_NATS_URL });
    let count = 0;
    nc.subscribe(`${namespace}.adapter.v1.${adapter}.*`, {
      callback: (_e, msg) => {
        const method = msg.subject.slice(msg.subject.lastIndexOf('.') + 1);
        const body = codec.decode(msg.data);
        let reply: Record<string, unknown> = { status: OK };
        if (method === 'info')
          reply = {
            name: adapter,
            description: 'reload test',
            templates: ['check'],
            sessionBased: true,
          };
        if (method === 'createSession') {
          reply = { sessionId: `s${++count}`, status: OK };
          sessions.push(`create s${count} ${JSON.stringify(body.adapterConfig)}`);
        }
        if (method === 'closeSession') sessions.push(`close ${String(body.sessionId)}`);
        msg.respond(codec.encode(reply));
      },
    });
    await nc.flush();
    writeFileSync(file, chain(adapter, 1));
    const port = await freePort();
    child = spawn(
      process.execPath,
      [
        '-r',
        'reflect-metadata',
        '-r',
        '@swc-node/register',
        join(REPO_ROOT, 'apps/enforcement-service/src/main.ts'),
      ],
      {
        cwd: REPO_ROOT,
        env: {
          PATH: process.env.PATH,
          NATS_URL: TEST_NATS_URL,
          NATS_NAMESPACE: namespace,
          DATABASE_URL: TEST_POSTGRES_URL,
          DATABASE_SCHEMA: schema,
          HOST: '127.0.0.1',
          PORT: String(port),
          // Errors only: the refused reload is what the test reads.
          LOG_LEVEL: 'error',
          ENFORCEMENT_CONFIG_FILE: file,
          ENFORCEMENT_CONFIG_WATCH_INTERVAL_MS: '3600000',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    child.stdout!.on('data', (chunk: Buffer) => (logs += chunk.toString()));
    await eventually(
      async () =>
        (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200 ? true : undefined,
      { timeoutMs: 30_000, intervalMs: 200, what: 'enforcement-service ready' },
    );
  }, 60_000);

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    await nc?.close();
    await removeTestResources({ schema, namespace });
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens the session at boot', () => {
    expect(sessions).toEqual(['create s1 {"version":1}']);
  });

  it('on SIGHUP, a changed handler gets a new session and the old one is closed', async () => {
    writeFileSync(file, chain(adapter, 2));
    child.kill('SIGHUP');
    await eventually(() => (sessions.length === 3 ? true : undefined), {
      timeoutMs: 15_000,
      what: 'the reload',
    });
    expect(sessions).toEqual(['create s1 {"version":1}', 'create s2 {"version":2}', 'close s1']);
  });

  it('refuses an invalid file on SIGHUP and keeps running; the next valid one applies', async () => {
    writeFileSync(file, 'enabled_filters: [probe]\nfilters: { probe: { adapter: Not_A_Label } }\n');
    child.kill('SIGHUP');
    await eventually(() => (logs.includes('enforcement config not reloaded') ? true : undefined), {
      timeoutMs: 15_000,
      what: 'the refusal logged',
    });
    expect(logs).toContain('filters.probe.adapter: must be an adapter name');
    expect(sessions).toHaveLength(3);
    writeFileSync(file, chain(adapter, 3));
    child.kill('SIGHUP');
    await eventually(() => (sessions.length === 5 ? true : undefined), {
      timeoutMs: 15_000,
      what: 'the second reload',
    });
    expect(child.exitCode).toBeNull();
    expect(sessions.slice(3)).toEqual(['create s3 {"version":3}', 'close s2']);
  });

  it('keeps the session when a reload finds the file empty mid-write: the replacement opens before the old session closes', async () => {
    // A file rewritten in place (an editor, a copy over the ConfigMap's file) is empty between
    // its truncation and its write; a reload may land there, then on the written file.
    const before = sessions.length;
    writeFileSync(file, '');
    child.kill('SIGHUP');
    await eventually(
      () => (logs.includes('is empty') || sessions.length > before ? true : undefined),
      { timeoutMs: 15_000, what: 'the reload of the empty file' },
    );
    writeFileSync(file, chain(adapter, 4));
    child.kill('SIGHUP');
    await eventually(() => (sessions.length === before + 2 ? true : undefined), {
      timeoutMs: 15_000,
      what: 'the reload of the written file',
    });
    expect(sessions.slice(before)).toEqual(['create s4 {"version":4}', 'close s3']);
  });

  it('closes its session when it stops', async () => {
    child.kill('SIGTERM');
    await once(child, 'exit');
    expect(sessions.at(-1)).toBe('close s4');
  });
});
