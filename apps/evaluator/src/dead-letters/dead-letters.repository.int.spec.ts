import { DeadLetterSummary, PREVIEW_SUBJECTS, DEAD_LETTER_STREAM } from '@rollout/contracts';
import { provisionFromEnv } from '@rollout/provision';
import { eventually } from '@rollout/testing/kit';
import { evaluatorEnv } from '../../test/evaluator-app';
import { inForce } from '../../test/evaluator-probes';
import { evaluatorSystem } from '../../test/evaluator-system';
import { LIVE } from '../../test/example-policies';
import { deadLetters } from '../../test/readouts';
import { publishTraffic, settledUpTo, trafficEvent } from '../../test/traffic-publishing';

/** preview.v1.deadLetters: the traffic the evaluator refused, by project, policy id and reason. */
const system = evaluatorSystem({
  given: async ({ world }) => {
    await world.policy('web', LIVE);
  },
  started: async ({ app, world }) => {
    await inForce(app, world, 'web', () => true);
  },
});

const summary = (parent: string, policy?: string) =>
  system.rpc.request<DeadLetterSummary>(
    PREVIEW_SUBJECTS.deadLetters,
    { parent, ...(policy ? { policy } : {}) },
    { timeoutMs: 5_000 },
  );
const ACME = 'projects/acme/locations/global';

describe('dead letters by project', () => {
  it('counts a typo in the policy id as unknown_policy, per policy and reason, with recent samples', async () => {
    let n = 0;
    await publishTraffic(system.nc, system.iso, 'web-typo', [
      trafficEvent(n++),
      trafficEvent(n++),
      trafficEvent(n++),
    ]);
    await publishTraffic(system.nc, system.iso, 'web', [
      trafficEvent(n++, { srcIp: '10.0.0.300' }),
      '{nope',
    ]);
    // Another project's typo, and a subject that names no project: neither is acme's.
    await publishTraffic(system.nc, system.iso, 'web', [trafficEvent(n++)], {
      project: 'other',
      location: 'global',
    });
    const seq = (
      await system.nc.jetstream().publish(system.iso.ns.subject('traffic.v1.acme'), '{}')
    ).seq;
    await eventually(() => settledUpTo(system.nc, system.iso, seq), { what: 'settled' });

    const all = await summary(ACME);
    expect(all.total).toBe(5);
    expect(all.byPolicy.map((p) => [p.policy, p.total, p.byReason])).toEqual([
      ['web-typo', 3, [{ reason: 'unknown_policy', count: 3 }]],
      [
        'web',
        2,
        [
          { reason: 'bad_address', count: 1 },
          { reason: 'bad_json', count: 1 },
        ],
      ],
    ]);
    for (const policy of all.byPolicy) expect(Date.parse(policy.lastTime)).not.toBeNaN();
    expect(all.samples.map((s) => [s.policy, s.reason]).sort()).toEqual([
      ['web', 'bad_address'],
      ['web', 'bad_json'],
      ['web-typo', 'unknown_policy'],
      ['web-typo', 'unknown_policy'],
      ['web-typo', 'unknown_policy'],
    ]);
    expect(all.samples.find((s) => s.reason === 'bad_address')?.detail).toBe(
      'invalid traffic event: srcIp "10.0.0.300" is not an IP address',
    );

    const typo = await summary(ACME, 'web-typo');
    expect([typo.total, typo.byPolicy.map((p) => p.policy), typo.samples.length]).toEqual([
      3,
      ['web-typo'],
      3,
    ]);
    expect((await summary('projects/other/locations/global')).total).toBe(1);
  });

  it('keeps the newest 20 samples of a project location, and counts every message', async () => {
    const before = (await summary(ACME)).total;
    const events = Array.from({ length: 30 }, (_, i) => trafficEvent(100 + i));
    const seq = await publishTraffic(system.nc, system.iso, 'web-typo-2', events);
    await eventually(() => settledUpTo(system.nc, system.iso, seq), { what: 'settled' });
    const after = await summary(ACME);
    expect(after.total - before).toBe(30);
    expect(after.samples).toHaveLength(20);
    expect(after.samples.every((s) => s.policy === 'web-typo-2')).toBe(true);
  });

  it('records a message redelivered while the dead-letter stream is away once, and dead-letters it once', async () => {
    const jsm = await system.nc.jetstreamManager();
    await jsm.streams.delete(system.iso.ns.stream(DEAD_LETTER_STREAM.name));
    await publishTraffic(system.nc, system.iso, 'web-typo-3', [
      trafficEvent(200),
      trafficEvent(201),
    ]);
    // Each publish to the missing stream fails and the message comes back a second later.
    await eventually(
      async () => ((await summary(ACME, 'web-typo-3')).total > 0 ? true : undefined),
      { what: 'recorded' },
    );
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    await provisionFromEnv({ ...evaluatorEnv(system.iso), BUS_PROVISION_SERVICES: 'evaluator' });
    await eventually(
      async () =>
        (await deadLetters(system.nc, system.iso)).filter((d) => d.subject.endsWith('web-typo-3'))
          .length === 2
          ? true
          : undefined,
      { what: 'dead-lettered', timeoutMs: 20_000 },
    );
    const typo = await summary(ACME, 'web-typo-3');
    expect([typo.total, typo.samples.length]).toEqual([2, 2]);
  });

  it('refuses a parent that is not a project location', async () => {
    await expect(summary('projects/acme')).rejects.toMatchObject({ status: 'INVALID_ARGUMENT' });
  });
});
