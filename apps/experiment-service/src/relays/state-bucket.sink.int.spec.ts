import {
  EXPERIMENT_STATE_BUCKET,
  EXPERIMENT_SUBJECTS,
  STATE_POSITION_KEY,
  STATE_VERSION_HEADER,
} from '@rollout/contracts';
import { kvOperationOf } from '@rollout/platform/nats';
import { eventually } from '@rollout/testing/kit';
import { experimentServiceSystem } from '../../test/experiment-service-system';

/**
 * The EXPERIMENT_STATE bucket against the event store it is written from: one entry per
 * aggregate, at its last version, however the bucket came to be empty or behind.
 */
describe('the experiment-service state relay', () => {
  const parent = 'projects/acme/locations/global';
  const system = experimentServiceSystem(given);
  const { schema } = system;
  const bucket = `${system.namespace}_${EXPERIMENT_STATE_BUCKET}`;
  const stream = `KV_${bucket}`;
  const call = <T>(subject: string, request: object) =>
    system.rpc.request<T>(subject, { actor: 'test', ...request }, { timeoutMs: 5_000 });

  /** `key → operation@version` of every key in the bucket, delete markers included. */
  async function entries(): Promise<Record<string, string | undefined>> {
    const jsm = await system.nc.jetstreamManager();
    const info = await jsm.streams.info(stream);
    const out: Record<string, string | undefined> = {};
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const message = await jsm.streams.getMessage(stream, { seq }).catch(() => undefined);
      if (!message) continue; // replaced by a later entry of its key
      const key = message.subject.slice(`$KV.${bucket}.`.length);
      if (key === STATE_POSITION_KEY) continue;
      out[key] = `${kvOperationOf(message.header)}@${message.header?.get(STATE_VERSION_HEADER)}`;
    }
    return out;
  }

  /** What the event store says the bucket must hold. */
  async function expected(): Promise<Record<string, string>> {
    const { rows } = await system.db.query<{ stream_id: string; version: number; type: string }>(
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

  /** The service started on three policies and two experiments, one of each deleted. */
  async function given() {
    await system.start();
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
  }

  it('holds the last version of every aggregate, deleted ones as delete markers, and says up to where', async () => {
    const held = await caughtUp();
    expect(held).toMatchObject({
      'experiment.v1.policy.acme.global.web': 'PUT@1',
      'experiment.v1.experiment.acme.global.web.tighten': 'PUT@2',
      'experiment.v1.experiment.acme.global.db.dropped': 'DEL@2',
      'experiment.v1.policy.acme.global.gone': 'DEL@2',
    });
    const kv = await system.nc.jetstream().views.kv(bucket);
    expect(
      (await kv.get('experiment.v1.experiment.acme.global.web.tighten'))?.json(),
    ).toMatchObject({
      type: 'PreviewStarted',
      version: 2,
      state: { previewMetadata: { state: 'ACTIVE' } },
    });
    const [last] = (
      await system.db.query(
        `SELECT tx_id::text, position::text FROM "${schema}".events ORDER BY events.tx_id DESC, events.position DESC LIMIT 1`,
      )
    ).rows;
    const position = await (
      await system.nc.jetstreamManager()
    ).streams.getMessage(stream, { last_by_subj: `$KV.${bucket}.${STATE_POSITION_KEY}` });
    expect([position.header?.get('Event-Tx'), position.header?.get('Event-Position')]).toEqual([
      last.tx_id,
      last.position,
    ]);
  });

  it('written again from the first event (its checkpoint and position lost), changes no entry', async () => {
    await caughtUp();
    await system.stop();
    const jsm = await system.nc.jetstreamManager();
    const before = (await jsm.streams.info(stream)).state.last_seq;
    await jsm.streams.purge(stream, { filter: `$KV.${bucket}.${STATE_POSITION_KEY}` });
    await system.db.query(`DELETE FROM "${schema}".relay_checkpoints`);
    await system.start();
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
    await system.stop();
    await (await system.nc.jetstreamManager()).streams.delete(stream);
    await system.start();
    expect(await caughtUp()).toEqual(held);
    // And follows new commands from there.
    await call(EXPERIMENT_SUBJECTS.deletePolicy, { name: `${parent}/firewallPolicies/db` });
    expect((await caughtUp())['experiment.v1.policy.acme.global.db']).toBe('DEL@2');
  });
});
