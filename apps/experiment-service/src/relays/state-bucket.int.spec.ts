import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@rollout/platform/config';
import {
  EXPERIMENT_STATE_BUCKET,
  EXPERIMENT_SUBJECTS,
  STATE_POSITION_KEY,
  STATE_VERSION_HEADER,
} from '@rollout/contracts';
import { NatsNamespace, NatsRpcClient, provisionFromEnv } from '@rollout/platform/nats';
import { startServiceApp } from '@rollout/platform/service-kit';
import {
  eventually,
  removeTestResources,
  TEST_NATS_URL,
  TEST_POSTGRES_URL,
  uniqueName,
} from '@rollout/testing/kit';
import { NatsConnection, connect } from 'nats';
import { Client } from 'pg';
import { AppModule } from '../app.module';
import { configSchema } from '../config';

/**
 * The EXPERIMENT_STATE bucket against the event store it is written from: one entry per
 * aggregate, at its last version, however the bucket came to be empty or behind.
 */
describe('the experiment-service state relay', () => {
  const namespace = uniqueName();
  const schema = uniqueName('it_');
  const bucket = `${namespace}_${EXPERIMENT_STATE_BUCKET}`;
  const stream = `KV_${bucket}`;
  const env = {
    NATS_URL: TEST_NATS_URL,
    NATS_NAMESPACE: namespace,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: TEST_POSTGRES_URL,
    DATABASE_SCHEMA: schema,
  };
  const parent = 'projects/acme/locations/global';
  let nc: NatsConnection;
  let db: Client;
  let service: INestApplication | undefined;
  let rpc: NatsRpcClient;

  const start = async () => {
    await provisionFromEnv({ ...env, BUS_PROVISION_SERVICES: 'experiment-service' });
    const config = loadConfig(configSchema, env);
    service = await startServiceApp({
      name: 'experiment-service',
      config,
      module: AppModule.forRoot(config),
      rpc: true,
    });
  };
  const stop = async () => {
    await service?.close();
    service = undefined;
  };
  const call = <T>(subject: string, request: object) =>
    rpc.request<T>(subject, { actor: 'test', ...request }, { timeoutMs: 5_000 });

  /** `key → operation@version` of every key in the bucket, delete markers included. */
  async function entries(): Promise<Record<string, string | undefined>> {
    const jsm = await nc.jetstreamManager();
    const info = await jsm.streams.info(stream);
    const out: Record<string, string | undefined> = {};
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const message = await jsm.streams.getMessage(stream, { seq }).catch(() => undefined);
      if (!message) continue; // replaced by a later entry of its key
      const key = message.subject.slice(`$KV.${bucket}.`.length);
      if (key === STATE_POSITION_KEY) continue;
      out[key] =
        `${message.header?.get('KV-Operation') || 'PUT'}@${message.header?.get(STATE_VERSION_HEADER)}`;
    }
    return out;
  }

  /** What the event store says the bucket must hold. */
  async function expected(): Promise<Record<string, string>> {
    const { rows } = await db.query<{ stream_id: string; version: number; type: string }>(
      `SELECT DISTINCT ON (stream_id) stream_id, version, type FROM "${schema}".events ORDER BY stream_id, version DESC`,
    );
    const out: Record<string, string> = {};
    for (const row of rows) {
      const [project, location, policy, experiment] = row.stream_id
        .split('/')
        .filter((_, i) => i % 2 === 1);
      const key = experiment
        ? `experiment.v1.experiment.${project}.${location}.${policy}.${experiment}`
        : `experiment.v1.policy.${project}.${location}.${policy}`;
      out[key] =
        `${['PolicyDeleted', 'ExperimentDeleted', 'ExperimentCommitted'].includes(row.type) ? 'DEL' : 'PUT'}@${row.version}`;
    }
    return out;
  }

  const caughtUp = () =>
    eventually(
      async () => {
        const [held, wanted] = [await entries(), await expected()];
        const sorted = (entries: Record<string, string | undefined>) =>
          JSON.stringify(Object.entries(entries).sort());
        if (sorted(held) !== sorted(wanted))
          throw new Error(`holds ${JSON.stringify(held)}, expected ${JSON.stringify(wanted)}`);
        return held;
      },
      { timeoutMs: 20_000, what: 'the bucket matching the event store' },
    );

  beforeAll(async () => {
    nc = await connect({ servers: TEST_NATS_URL });
    rpc = new NatsRpcClient(nc, new NatsNamespace(namespace));
    db = new Client({ connectionString: TEST_POSTGRES_URL });
    await db.connect();
    await start();
    const rules = [
      {
        priority: 100,
        direction: 'INGRESS',
        action: 'allow',
        match: { srcIpRanges: ['10.0.0.0/8'] },
      },
    ];
    for (const id of ['web', 'db', 'gone'])
      await call(EXPERIMENT_SUBJECTS.createPolicy, {
        parent,
        firewallPolicyId: id,
        firewallPolicy: { rules },
      });
    await call(EXPERIMENT_SUBJECTS.createExperiment, {
      parent: `${parent}/firewallPolicies/web`,
      experimentId: 'tighten',
      experiment: { firewallPolicy: { rules: [] } },
    });
    await call(EXPERIMENT_SUBJECTS.startPreview, {
      name: `${parent}/firewallPolicies/web/experiments/tighten`,
    });
    await call(EXPERIMENT_SUBJECTS.createExperiment, {
      parent: `${parent}/firewallPolicies/db`,
      experimentId: 'dropped',
      experiment: { firewallPolicy: { rules } },
    });
    await call(EXPERIMENT_SUBJECTS.deleteExperiment, {
      name: `${parent}/firewallPolicies/db/experiments/dropped`,
    });
    await call(EXPERIMENT_SUBJECTS.deletePolicy, { name: `${parent}/firewallPolicies/gone` });
  }, 60_000);

  afterAll(async () => {
    await stop();
    await nc?.close();
    await db?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db?.end();
    await removeTestResources({ namespace });
  });

  it('holds the last version of every aggregate, deleted ones as delete markers, and says up to where', async () => {
    const held = await caughtUp();
    expect(held).toMatchObject({
      'experiment.v1.policy.acme.global.web': 'PUT@1',
      'experiment.v1.experiment.acme.global.web.tighten': 'PUT@2',
      'experiment.v1.experiment.acme.global.db.dropped': 'DEL@2',
      'experiment.v1.policy.acme.global.gone': 'DEL@2',
    });
    const kv = await nc.jetstream().views.kv(bucket);
    expect(
      (await kv.get('experiment.v1.experiment.acme.global.web.tighten'))?.json(),
    ).toMatchObject({
      type: 'PreviewStarted',
      version: 2,
      state: { previewMetadata: { state: 'ACTIVE' } },
    });
    const [last] = (
      await db.query(
        `SELECT tx_id::text, position::text FROM "${schema}".events ORDER BY tx_id DESC, position DESC LIMIT 1`,
      )
    ).rows;
    const position = await (
      await nc.jetstreamManager()
    ).streams.getMessage(stream, { last_by_subj: `$KV.${bucket}.${STATE_POSITION_KEY}` });
    expect([position.header?.get('Event-Tx'), position.header?.get('Event-Position')]).toEqual([
      last.tx_id,
      last.position,
    ]);
  });

  it('written again from the first event (its checkpoint and position lost), changes no entry', async () => {
    await caughtUp();
    await stop();
    const jsm = await nc.jetstreamManager();
    const before = (await jsm.streams.info(stream)).state.last_seq;
    await jsm.streams.purge(stream, { filter: `$KV.${bucket}.${STATE_POSITION_KEY}` });
    await db.query(`DELETE FROM "${schema}".relay_checkpoints`);
    await start();
    await eventually(
      () =>
        jsm.streams
          .getMessage(stream, { last_by_subj: `$KV.${bucket}.${STATE_POSITION_KEY}` })
          .catch(() => undefined),
      { what: 'the position written again' },
    );
    // The position key is the only new entry: every aggregate's entry was already at its version.
    expect((await jsm.streams.info(stream)).state.last_seq).toBe(before + 1);
  });

  it('fills a bucket that is gone (an upgrade from before it existed) from the event store, while it runs', async () => {
    const held = await caughtUp();
    await stop();
    await (await nc.jetstreamManager()).streams.delete(stream);
    await start();
    expect(await caughtUp()).toEqual(held);
    // And follows new commands from there.
    await call(EXPERIMENT_SUBJECTS.deletePolicy, { name: `${parent}/firewallPolicies/db` });
    expect((await caughtUp())['experiment.v1.policy.acme.global.db']).toBe('DEL@2');
  });
});
