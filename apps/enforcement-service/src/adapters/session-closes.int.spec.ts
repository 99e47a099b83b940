import {
  ServiceProcess,
  TEST_NATS_URL,
  TEST_POSTGRES_URL,
  eventually,
  removeTestResources,
  startServiceProcess,
  uniqueName,
} from '@rollout/testing/kit';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JSONCodec, Msg, NatsConnection, connect } from 'nats';
import { Client } from 'pg';

/**
 * A CloseSession the adapter did not acknowledge is kept in `adapter_session_closes` and tried
 * again; while a retry waits for the adapter, the row is claimed by time, not locked, so nothing
 * else touching the queue waits on the adapter. The adapter is a few lines of the raw `nats`
 * client on the real server: it refuses the first close and holds the answer to the second.
 */
const codec = JSONCodec<Record<string, unknown>>();
const OK = { code: 200, status: 'OK', message: '', details: [] };
const UNAVAILABLE = { code: 503, status: 'UNAVAILABLE', message: 'busy', details: [] };

const chain = (adapter: string, version: number) => `
enabled_filters: [probe]
filters:
  probe: { adapter: ${adapter}, params: { version: ${version} }, templates: [check] }
`;

describe('adapter session closes kept for a retry', () => {
  const dir = mkdtempSync(join(tmpdir(), 'enforcement-closes-'));
  const file = join(dir, 'enforcement.yaml');
  const namespace = uniqueName();
  const schema = uniqueName('it_');
  const adapter = uniqueName('closes-');
  const closes: Msg[] = [];
  let created = 0;
  let nc: NatsConnection;
  let db: Client;
  let service: ServiceProcess;

  beforeAll(async () => {
    nc = await connect({ servers: TEST_NATS_URL });
    db = new Client({ connectionString: TEST_POSTGRES_URL });
    await db.connect();
    nc.subscribe(`${namespace}.adapter.v1.${adapter}.*`, {
      callback: (_e, msg) => {
        const method = msg.subject.slice(msg.subject.lastIndexOf('.') + 1);
        if (method === 'closeSession') {
          closes.push(msg);
          // The first close is refused (kept for a retry); the second waits for the test (a
          // busy machine may see it time out: later ones are acknowledged at once).
          if (closes.length === 1) msg.respond(codec.encode({ status: UNAVAILABLE }));
          if (closes.length > 2) msg.respond(codec.encode({ status: OK }));
          return;
        }
        const reply: Record<string, unknown> =
          method === 'info'
            ? {
                name: adapter,
                description: 'closes test',
                templates: ['check'],
                sessionBased: true,
              }
            : method === 'createSession'
              ? { sessionId: `s${++created}`, status: OK }
              : { status: OK };
        msg.respond(codec.encode(reply));
      },
    });
    await nc.flush();
    writeFileSync(file, chain(adapter, 1));
    service = startServiceProcess('enforcement-service', {
      NATS_NAMESPACE: namespace,
      DATABASE_SCHEMA: schema,
      ENFORCEMENT_CONFIG_FILE: file,
      ENFORCEMENT_CONFIG_WATCH_INTERVAL_MS: '3600000',
      ENFORCEMENT_RETRY_BASE_MS: '100',
      ENFORCEMENT_RETRY_POLL_INTERVAL_MS: '100',
    });
    await eventually(() => (created === 1 ? true : undefined), {
      timeoutMs: 30_000,
      what: 'the first session',
    });
  }, 60_000);

  afterAll(async () => {
    for (const msg of closes.slice(1)) msg.respond(codec.encode({ status: OK }));
    await service?.stop();
    await nc?.close();
    await db?.end();
    await removeTestResources({ schema, namespace });
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds no row lock while a retried CloseSession waits for the adapter, and forgets the close once acknowledged', async () => {
    writeFileSync(file, chain(adapter, 2));
    service.child.kill('SIGHUP');
    await eventually(() => (closes.length === 2 ? true : undefined), {
      timeoutMs: 15_000,
      what: 'the retried close',
    });
    // The retry is waiting for its answer now: the row can be locked at once (NOWAIT fails on a
    // lock held by the retry pass).
    await db.query('BEGIN');
    const row = await db.query(
      `SELECT session_id, attempts FROM "${schema}".adapter_session_closes FOR UPDATE NOWAIT`,
    );
    await db.query('COMMIT');
    expect(row.rows).toEqual([{ session_id: 's1', attempts: expect.any(Number) }]);

    closes[1].respond(codec.encode({ status: OK }));
    await eventually(
      async () =>
        (await db.query(`SELECT 1 FROM "${schema}".adapter_session_closes`)).rowCount === 0
          ? true
          : undefined,
      { timeoutMs: 15_000, what: 'the close forgotten' },
    );
  });
});
