import {
  EXPERIMENT_STATE_BUCKET,
  FirewallRule,
  PreviewConfigurationReport,
  STATE_POSITION_KEY,
  TRAFFIC_STREAM,
} from '@rollout/contracts';
import { eventually } from '@rollout/testing/kit';
import { previewReport } from '../../test/evaluator-probes';
import { evaluatorSystem } from '../../test/evaluator-system';
import { publishTraffic, settledUpTo, trafficEvent } from '../../test/traffic-publishing';

const LIVE: FirewallRule[] = [
  { priority: 100, direction: 'INGRESS', action: 'allow', match: { srcIpRanges: ['10.0.0.0/8'] } },
];
const BLOCK: FirewallRule[] = [
  { priority: 10, direction: 'INGRESS', action: 'deny', match: { srcIpRanges: ['10.0.1.0/24'] } },
  ...LIVE,
];

let n = 0;
const valid = (count: number) => Array.from({ length: count }, () => trafficEvent(n++));

/** Whether a report's counts are all of its policy's traffic: what was dead-lettered, dropped, or is still to read. */
describe('the preview report: completeness', () => {
  const system = evaluatorSystem({
    eachTest: true,
    given: async ({ world }) => {
      await world.policy('web', LIVE);
      await world.experiment('web', 'block', BLOCK, 'ACTIVE');
      await world.policy('api', LIVE);
      await world.experiment('api', 'clean', BLOCK, 'ACTIVE');
      await world.policy('quiet', LIVE);
    },
  });

  const configuration = async (
    policy: string,
    experiment: string,
  ): Promise<PreviewConfigurationReport | undefined> =>
    (await previewReport(system.rpc, system.world, experiment, policy)).configurations[0];

  it("counts the dead letters of the experiment's policy by reason, and calls a report without loss complete", async () => {
    const { nc, iso } = system;
    await system.start();
    await publishTraffic(nc, iso, 'web', [...valid(5), 'not json', '{"id":"x"}', 'neither']);
    await publishTraffic(nc, iso, 'quiet', ['not json either']); // no ACTIVE experiment: no report misses it
    await publishTraffic(nc, iso, 'gone', valid(1)); // unknown_policy: no report at all
    const last = await publishTraffic(nc, iso, 'api', valid(4));
    await eventually(() => settledUpTo(nc, iso, last), { what: 'settled' });

    const web = await configuration('web', 'block');
    expect(web?.evaluated).toBe(5);
    expect(web?.completeness).toEqual({
      complete: false,
      summary:
        "Incomplete: 3 messages of this policy's traffic were dead-lettered (bad_json 2, invalid_event 1) and are not counted.",
      deadLettered: [
        { reason: 'bad_json', messages: 2 },
        { reason: 'invalid_event', messages: 1 },
      ],
      deadLetteredMessages: 3,
      redeliveredEvents: 0,
      trafficDroppedMessages: 0,
      trafficDropUndetermined: 0,
      lag: { pendingMessages: 0 },
    });
    const api = await configuration('api', 'clean');
    expect(api?.evaluated).toBe(4);
    expect(api?.completeness).toMatchObject({
      complete: true,
      summary: "Complete: every message of this policy's traffic is counted, none lost.",
      deadLetteredMessages: 0,
    });
  });

  it('counts a trickle of events as they come: none waits for its ack wait and comes back redelivered', async () => {
    const { nc, iso } = system;
    // Batches of 4: the pull asks for more every 2 messages, a request queued right behind the
    // message it followed. A message left in its batch would be counted only after the ack wait,
    // as a redelivery.
    await system.start({ EVALUATOR_BATCH_SIZE: '4', EVALUATOR_ACK_WAIT_MS: '2000' });
    for (let i = 1; i <= 12; i++) {
      await publishTraffic(nc, iso, 'web', valid(1));
      await eventually(
        async () => ((await configuration('web', 'block'))?.evaluated === i ? true : undefined),
        { what: `event ${i} counted` },
      );
    }

    const web = await configuration('web', 'block');
    expect(web?.evaluated).toBe(12);
    expect(web?.completeness).toMatchObject({ complete: true, redeliveredEvents: 0 });
  });

  it('says how many messages TRAFFIC dropped before the evaluator read them, while every evaluator was down', async () => {
    const { nc, iso } = system;
    const env = { TRAFFIC_MAX_AGE_MS: '1500' };
    await system.start(env);
    let last = await publishTraffic(nc, iso, 'web', valid(5));
    await eventually(() => settledUpTo(nc, iso, last), { what: 'the first five settled' });
    await system.stop();

    // Ten messages age out of TRAFFIC with nobody reading.
    await publishTraffic(nc, iso, 'web', valid(10));
    const jsm = await nc.jetstreamManager();
    await eventually(
      async () =>
        (await jsm.streams.info(iso.ns.stream(TRAFFIC_STREAM))).state.messages === 0
          ? true
          : undefined,
      {
        timeoutMs: 15_000,
        what: 'TRAFFIC removing the unread messages',
      },
    );

    await system.start(env);
    last = await publishTraffic(nc, iso, 'web', valid(3));
    await eventually(() => settledUpTo(nc, iso, last), { what: 'the last three settled' });
    const web = await configuration('web', 'block');
    expect(web?.evaluated).toBe(8);
    expect(web?.completeness).toMatchObject({
      complete: false,
      trafficDroppedMessages: 10,
      trafficDropUndetermined: 0,
      summary:
        'Incomplete: TRAFFIC dropped 10 messages (of every policy) before the evaluator read them.',
    });
  });

  it("reports the evaluator's backlog while it has messages left to read", async () => {
    const { nc, iso, world } = system;
    await system.start();
    let last = await publishTraffic(nc, iso, 'web', valid(2));
    await eventually(() => settledUpTo(nc, iso, last), { what: 'settled' });
    await system.stop();
    // Without its position key the bucket is not known to be filled: a new evaluator answers
    // report requests but reads no traffic until the key is back.
    const bucket = iso.ns.bucket(EXPERIMENT_STATE_BUCKET);
    const jsm = await nc.jetstreamManager();
    await jsm.streams.purge(`KV_${bucket}`, { filter: `$KV.${bucket}.${STATE_POSITION_KEY}` });
    last = await publishTraffic(nc, iso, 'api', valid(7));
    await system.start();

    const waiting = await configuration('web', 'block');
    expect(waiting?.completeness?.complete).toBe(false);
    expect(waiting?.completeness?.lag).toEqual({
      pendingMessages: 7,
      oldestPendingTime: expect.any(String),
    });
    expect(waiting?.completeness?.summary).toMatch(
      /^Incomplete: the evaluator has 7 messages left to read \(oldest published \d{4}-.+Z\)\.$/,
    );

    await world.markFilled();
    await eventually(() => settledUpTo(nc, iso, last), { what: 'the backlog read' });
    expect((await configuration('web', 'block'))?.completeness).toMatchObject({
      complete: true,
      lag: { pendingMessages: 0 },
    });
  });
});
