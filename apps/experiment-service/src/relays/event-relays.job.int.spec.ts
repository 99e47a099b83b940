import {
  CreatePolicyRequest,
  EXPERIMENT_EVENTS_STREAM,
  EXPERIMENT_SUBJECTS,
} from '@rollout/contracts';
import { eventually, startServiceProcess, TEST_POSTGRES_URL } from '@rollout/testing/kit';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { JSONCodec } from 'nats';
import { experimentServiceSystem } from '../../test/experiment-service-system';

/**
 * kill -9 between append and publish: the events are the outbox, so the next start publishes
 * every committed event, and each exactly once.
 */
describe('an experiment-service killed between committing events and publishing them', () => {
  const system = experimentServiceSystem();
  const { schema } = system;
  const stream = `${system.namespace}_${EXPERIMENT_EVENTS_STREAM}`;

  /** Event ids in the JetStream stream, in stream order (optionally only those of one aggregate). */
  async function published(name?: string): Promise<string[]> {
    const jsm = await system.nc.jetstreamManager();
    const info = await jsm.streams.info(stream).catch(() => undefined);
    const codec = JSONCodec<{ id: string; subject: string }>();
    const ids: string[] = [];
    for (let seq = 1; info && seq <= info.state.last_seq; seq++) {
      const event = codec.decode((await jsm.streams.getMessage(stream, { seq })).data);
      if (name === undefined || event.subject === name) ids.push(event.id);
    }
    return ids;
  }

  const committed = async (): Promise<string[]> =>
    (
      await system.db.query(`SELECT event_id FROM "${schema}".events ORDER BY tx_id, position`)
    ).rows.map((r) => r.event_id);

  const checkpointed = async () =>
    (
      await system.db
        .query(`SELECT 1 FROM "${schema}".relay_checkpoints`)
        .catch(() => ({ rows: [] }))
    ).rows.length
      ? true
      : undefined;

  it('a process that appended and died before publishing: the next start delivers, and a lost checkpoint republishes nothing', async () => {
    const policy = 'projects/acme/locations/global/firewallPolicies/survivor';
    const doomed = spawn(
      process.execPath,
      [
        '-r',
        'reflect-metadata',
        '-r',
        '@swc-node/register',
        join(__dirname, '__fixtures__', 'append-then-hang.ts'),
        TEST_POSTGRES_URL,
        schema,
        policy,
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    doomed.stdout!.on('data', (chunk) => (out += chunk));
    await eventually(() => (out.includes('appended') ? true : undefined), {
      timeoutMs: 20_000,
      what: 'the append',
    });
    doomed.kill('SIGKILL');
    await once(doomed, 'exit');
    expect(await published(policy)).toEqual([]);

    await system.start();
    const delivered = await eventually(async () => {
      const ids = await published(policy);
      return ids.length ? ids : undefined;
    });
    expect(delivered).toEqual(
      (
        await system.db.query(`SELECT event_id FROM "${schema}".events WHERE stream_id = $1`, [
          policy,
        ])
      ).rows.map((r) => r.event_id),
    );
    await system.stop();

    // Forget the checkpoint, as a crash right after publishing would: nothing is published twice.
    await system.db.query(`DELETE FROM "${schema}".relay_checkpoints`);
    await system.start();
    await eventually(checkpointed, { what: 'the relay caught up again' });
    await system.stop();
    expect(await published(policy)).toEqual(delivered);
  }, 60_000);

  it('the real service killed with -9 under load: after a restart every committed event is in the stream once, in commit order', async () => {
    const service = startServiceProcess('experiment-service', system.env);
    const create = (i: number) =>
      system.rpc.request(
        EXPERIMENT_SUBJECTS.createPolicy,
        {
          parent: 'projects/acme/locations/load',
          firewallPolicyId: `p${i}`,
          firewallPolicy: { rules: [] },
          actor: 'test',
        } satisfies CreatePolicyRequest,
        { timeoutMs: 5_000 },
      );
    await eventually(
      () =>
        create(-1)
          .then(() => true)
          .catch(() => undefined),
      { timeoutMs: 25_000, intervalMs: 200, what: 'the service serving' },
    );
    // Keep commands flowing and kill the process in the middle of them.
    const inFlight = Array.from({ length: 200 }, (_, i) =>
      create(i).then(
        () => 'ok',
        () => 'failed',
      ),
    );
    await eventually(async () => ((await committed()).length >= 50 ? true : undefined), {
      what: 'commands committed',
    });
    await service.stop('SIGKILL');
    const outcomes = await Promise.all(inFlight);
    expect(outcomes).toContain('ok');

    const events = await committed();
    await system.start();
    const stored = await eventually(
      async () => {
        const ids = await published();
        return ids.length >= events.length ? ids : undefined;
      },
      { timeoutMs: 20_000, what: 'every committed event published' },
    );
    await system.stop();
    // The stream holds exactly the committed events (this file's, both tests), in commit order.
    expect(stored).toEqual(events);
  }, 90_000);
});
