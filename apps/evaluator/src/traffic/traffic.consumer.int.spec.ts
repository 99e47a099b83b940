import { eventually } from '@rollout/testing/kit';
import { evaluatorSystem } from '../../test/evaluator-system';
import { inForce as inForceOf, previewReport } from '../../test/evaluator-probes';
import { BLOCK, LIVE, exampleEvents } from '../../test/example-policies';
import { allFlows } from '../../test/readouts';
import { publishTraffic, settledUpTo, trafficEvent } from '../../test/traffic-publishing';

/**
 * The evaluator in-process on its own namespace and schema; the experiment service's domain
 * events are published by the test exactly as its relay publishes them.
 */

const report = (experiment: string) => previewReport(system.rpc, system.world, experiment);
const inForce: (policy: string, ready: Parameters<typeof inForceOf>[3]) => Promise<unknown> = (
  policy,
  ready,
) => inForceOf(system.app, system.world, policy, ready);

const system = evaluatorSystem({
  given: async ({ world }) => {
    // A first configuration (the first live and experiment versions) that counted one changed event.
    await world.policy('web', LIVE);
    await world.experiment('web', 'block', BLOCK, 'ACTIVE');
  },
  started: async ({ iso, nc }) => {
    const seq = await publishTraffic(nc, iso, 'web', [trafficEvent(1, { srcIp: '10.0.1.7' })]);
    await eventually(() => settledUpTo(nc, iso, seq), { what: 'first configuration counted' });
  },
});

describe('evaluating traffic', () => {
  let liveEtag: string;
  const etags: Record<string, string> = {};

  beforeAll(async () => {
    liveEtag = await system.world.policy('web', LIVE);
    etags.block = await system.world.experiment('web', 'block', BLOCK, 'ACTIVE');
    etags.noop = await system.world.experiment('web', 'noop', [], 'ACTIVE');
    await system.world.experiment('web', 'draft', BLOCK);
    await system.world.experiment('web', 'paused', BLOCK, 'SUSPENDED');
  });

  const events = exampleEvents();

  it('evaluates the live policy and every ACTIVE experiment: exact totals, changed flows, and nothing for the others', async () => {
    await inForce(
      'web',
      (view) =>
        view.etag === liveEtag &&
        view.active.map((e) => e.etag).join() === `${etags.block},${etags.noop}`,
    );
    const seq = await publishTraffic(system.nc, system.iso, 'web', events);
    await eventually(() => settledUpTo(system.nc, system.iso, seq), { what: 'events settled' });

    // The report of this configuration: exactly these five evaluations.
    const { configurations } = await report('block');
    expect(configurations[0]).toEqual({
      experimentEtag: etags.block,
      livePolicyEtag: liveEtag,
      evaluated: 5,
      changed: 1,
      allowToDeny: 1,
      denyToAllow: 0,
      unchangedAllow: 3,
      unchangedDeny: 1,
      liveRules: [
        { rulePriority: 100, implied: false, action: 'allow', count: 3 },
        { rulePriority: null, implied: true, action: 'allow', count: 1 },
        { rulePriority: 200, implied: false, action: 'deny', count: 1 },
      ],
      experimentRules: [
        { rulePriority: 100, implied: false, action: 'allow', count: 2 },
        { rulePriority: null, implied: true, action: 'allow', count: 1 },
        { rulePriority: 50, implied: false, action: 'deny', count: 1 },
        { rulePriority: 200, implied: false, action: 'deny', count: 1 },
      ],
      topChangedSources: [{ srcIp: '10.0.1.5', count: 1 }],
      topChangedDestinationPorts: [{ protocol: 'tcp', destPort: 22, count: 1 }],
      topChangedSourcePrefixes: [
        { prefix: '10.0.1.0/24', prefixLength: 24, count: 1, flows: 1, addresses: 1 },
        { prefix: '10.0.0.0/16', prefixLength: 16, count: 1, flows: 1, addresses: 1 },
      ],
      topChangedDestinationPrefixes: [
        { prefix: '192.0.2.0/24', prefixLength: 24, count: 1, flows: 1, addresses: 1 },
        { prefix: '192.0.0.0/16', prefixLength: 16, count: 1, flows: 1, addresses: 1 },
      ],
      flows: 1,
      changedOutsideFlows: 0,
      ruleTransitions: [
        {
          live: { action: 'allow', rulePriority: 100, implied: false },
          experiment: { action: 'allow', rulePriority: 100, implied: false },
          count: 2,
        },
        {
          live: { action: 'allow', rulePriority: null, implied: true },
          experiment: { action: 'allow', rulePriority: null, implied: true },
          count: 1,
        },
        {
          live: { action: 'allow', rulePriority: 100, implied: false },
          experiment: { action: 'deny', rulePriority: 50, implied: false },
          count: 1,
        },
        {
          live: { action: 'deny', rulePriority: 200, implied: false },
          experiment: { action: 'deny', rulePriority: 200, implied: false },
          count: 1,
        },
      ],
      ruleTransitionsOmitted: 0,
      // Events 10 to 14 seconds into the minute.
      timeBuckets: [
        {
          startTime: '2025-06-01T00:00:00.000Z',
          width: 'MINUTE',
          evaluated: 5,
          changed: 1,
          allowToDeny: 1,
          denyToAllow: 0,
        },
      ],
      // The other ACTIVE experiment (noop: implied deny) decides two of these events differently.
      disagreements: [
        {
          experiment: system.world.experimentName('web', 'noop'),
          experimentEtag: etags.noop,
          events: 2,
          topFlows: [
            {
              direction: 'INGRESS',
              srcIp: '10.0.1.5',
              destIp: '192.0.2.10',
              protocol: 'tcp',
              destPort: 443,
              action: 'allow',
              otherAction: 'deny',
              count: 1,
            },
            {
              direction: 'INGRESS',
              srcIp: '10.0.2.5',
              destIp: '192.0.2.10',
              protocol: 'tcp',
              destPort: 22,
              action: 'allow',
              otherAction: 'deny',
              count: 1,
            },
          ],
          eventsOutsideFlows: 0,
        },
      ],
      // Its one differing region (10.0.1.0/24 to port 22) was touched; every experiment rule decided something.
      coverage: {
        complete: true,
        differingRegions: 1,
        regionsOmitted: 0,
        untouchedRegions: [],
        exact: true,
        unmatchedExperimentRules: [],
        shadowedRules: [],
        changedByRegion: [
          {
            summary: 'tcp/22 from 10.0.1.0/24 is now denied',
            action: 'deny',
            events: 1,
            flows: 1,
            sources: 1,
          },
        ],
      },
      completeness: {
        complete: true,
        summary: "Complete: every message of this policy's traffic is counted, none lost.",
        deadLettered: [],
        deadLetteredMessages: 0,
        redeliveredEvents: 0,
        trafficDroppedMessages: 0,
        trafficDropUndetermined: 0,
        lag: { pendingMessages: 0 },
      },
      // The live policy's own rules: both decided something, so none is unused.
      liveRuleUsage: {
        livePolicyEtag: 'web-L2',
        rules: [
          { rulePriority: 100, action: 'allow', hits: 3 },
          { rulePriority: 200, action: 'deny', hits: 1 },
        ],
        impliedHits: 1,
        unusedRules: [],
      },
      firstEventTime: events[0].time,
      lastEventTime: events[4].time,
    });
    // The earlier configuration (the first experiment and live versions) keeps its own totals.
    expect(configurations.slice(1).map((c) => [c.evaluated, c.changed])).toEqual([[1, 1]]);

    // Only the changed decision is kept, as a flow, with the event as its sample.
    const blockFlows = (
      await allFlows(system.rpc, system.world.experimentName('web', 'block'))
    ).filter((f) => f.experimentEtag === etags.block);
    expect(blockFlows).toEqual([
      {
        experimentEtag: etags.block,
        livePolicyEtag: liveEtag,
        direction: 'INGRESS',
        srcIp: '10.0.1.5',
        destIp: '192.0.2.10',
        protocol: 'tcp',
        destPort: 22,
        transition: 'ALLOW_TO_DENY',
        liveResult: { action: 'allow', rulePriority: 100, implied: false },
        experimentResult: { action: 'deny', rulePriority: 50, implied: false },
        count: 1,
        firstEventTime: events[0].time,
        lastEventTime: events[0].time,
        samples: [
          { trafficEventId: events[0].id, eventTime: events[0].time, srcPort: events[0].srcPort },
        ],
      },
    ]);

    // The no-op experiment previews deleting the policy: the implied rules decide everything.
    const noopReport = (await report('noop')).configurations;
    expect(
      noopReport.map((c) => [
        c.experimentEtag,
        c.evaluated,
        c.allowToDeny,
        c.denyToAllow,
        c.unchangedDeny,
        c.unchangedAllow,
        c.flows,
      ]),
    ).toEqual([[etags.noop, 5, 3, 0, 1, 1, 3]]);
    const noopFlows = await allFlows(system.rpc, system.world.experimentName('web', 'noop'));
    expect(
      noopFlows.map((f) => [f.srcIp, f.destPort, f.transition, f.experimentResult.implied]).sort(),
    ).toEqual(
      [
        ['10.0.1.5', 22, 'ALLOW_TO_DENY', true],
        ['10.0.1.5', 443, 'ALLOW_TO_DENY', true],
        ['10.0.2.5', 22, 'ALLOW_TO_DENY', true],
      ].sort(),
    );

    // Never-started and suspended experiments: no report, no flows.
    // Their readiness is judged on nothing (they have no gates, so they are ready) and the reportEtag digests the empty report.
    expect(await report('paused')).toEqual({
      name: system.world.experimentName('web', 'paused'),
      configurations: [],
      readiness: expect.objectContaining({ ready: true, gates: [] }),
      reportEtag: expect.stringMatching(/^[\w-]{16}\.[\w-]{16}$/),
    });
    expect(await allFlows(system.rpc, system.world.experimentName('web', 'draft'))).toEqual([]);
  });
});
