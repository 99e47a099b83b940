import { FirewallPolicyExperiment, FirewallRule } from '@rollout/contracts';
import { analyzeExperiment } from '@rollout/domain/firewall';
import {
  ConfigurationRow,
  ReportRows,
  buildReport,
  configurationsWithin,
  reportReading,
  ruleCountMargins,
} from './report';
import type { HeldExperiment, HeldVersions } from './views';
import { HOUR_MS, MINUTE_MS } from './totals';

const NAME = 'projects/acme/locations/global/firewallPolicies/edge/experiments/tighten';
const T0 = Date.parse('2026-11-24T00:00:00Z');
const LIVE: FirewallRule[] = [
  { priority: 100, direction: 'INGRESS', action: 'allow', match: { srcIpRanges: ['10.0.0.0/8'] } },
];
const TIGHTENED: FirewallRule[] = [
  { priority: 10, direction: 'INGRESS', action: 'deny', match: { srcIpRanges: ['10.0.1.0/24'] } },
  ...LIVE,
];

function configuration(id: number, overrides: Partial<ConfigurationRow> = {}): ConfigurationRow {
  return {
    id,
    experimentEtag: `E${id}`,
    livePolicyEtag: 'L1',
    evaluated: 10,
    changed: 2,
    allowToDeny: 2,
    denyToAllow: 0,
    unchangedAllow: 8,
    unchangedDeny: 0,
    flows: 1,
    changedOutsideFlows: 0,
    redeliveredEvents: 0,
    trafficDroppedMessages: 0,
    trafficDropUndetermined: 0,
    firstEventTime: new Date(T0),
    lastEventTime: new Date(T0 + 8 * HOUR_MS),
    ...overrides,
  };
}

function rows(overrides: Partial<ReportRows> = {}): ReportRows {
  return {
    configurations: [],
    ruleCounts: [],
    topSources: [],
    topPorts: [],
    topPrefixes: [],
    transitions: [],
    timeBuckets: [],
    deadLetters: [],
    disagreements: [],
    denyToAllowFrom: new Map(),
    ...overrides,
  };
}

function held(overrides: Partial<FirewallPolicyExperiment> = {}): HeldExperiment {
  return {
    state: {
      name: NAME,
      firewallPolicy: { name: 'projects/acme/locations/global/firewallPolicies/edge', rules: [] },
      annotations: {},
      etag: 'E2',
      createTime: '2026-11-24T00:00:00.000Z',
      updateTime: '2026-11-24T00:00:00.000Z',
      previewMetadata: {
        state: 'ACTIVE',
        logPrefix: 'FirewallPolicyPreviewLog',
        startTime: '2026-11-24T00:00:00.000Z',
      },
      ...overrides,
    },
    lastEvent: 'PreviewStarted',
    liveEtag: 'L1',
  };
}

const versions: HeldVersions = {
  experimentEtag: 'E2',
  experimentRules: TIGHTENED,
  liveEtag: 'L1',
  liveRules: LIVE,
};

describe('buildReport', () => {
  it('reports an experiment with nothing stored as no configurations, its readiness judged on nothing', () => {
    expect(buildReport(NAME, rows(), { held: undefined, lag: undefined })).toEqual({
      name: NAME,
      configurations: [],
      reportEtag: expect.any(String),
    });
    const report = buildReport(NAME, rows(), {
      held: held({ readinessGates: [{ minEvaluated: 1 }] }),
      lag: undefined,
    });
    expect(report.readiness).toMatchObject({
      currentExperimentEtag: 'E2',
      experimentEtag: 'E2',
      ready: false,
      gates: [{ kind: 'minEvaluated', value: 0, holds: false }],
    });
  });

  it("gives each configuration its own sections, newest first, with coverage only for the versions' configuration", () => {
    const report = buildReport(
      NAME,
      rows({
        configurations: [configuration(2), configuration(1)],
        ruleCounts: [
          { configurationId: 1, side: 0, priority: 100, action: 'allow', count: 10 },
          { configurationId: 2, side: 0, priority: 100, action: 'allow', count: 10 },
          { configurationId: 2, side: 1, priority: 10, action: 'deny', count: 2 },
          { configurationId: 2, side: 1, priority: 100, action: 'allow', count: 8 },
        ],
        topSources: [{ configurationId: 2, srcIp: '10.0.1.1', count: 2 }],
        topPrefixes: [
          {
            configurationId: 2,
            side: 'source',
            prefix: '10.0.1.0/24',
            prefixLength: 24,
            count: 2,
            flows: 1,
            addresses: 1,
          },
          {
            configurationId: 2,
            side: 'destination',
            prefix: '192.0.0.0/16',
            prefixLength: 16,
            count: 2,
            flows: 1,
            addresses: 1,
          },
        ],
        timeBuckets: [
          // Older than 6 hours before the last event: rolled into the hour bucket.
          {
            configurationId: 2,
            startMs: T0,
            widthMs: MINUTE_MS,
            evaluated: 4,
            changed: 1,
            allowToDeny: 1,
            denyToAllow: 0,
          },
          {
            configurationId: 2,
            startMs: T0,
            widthMs: HOUR_MS,
            evaluated: 5,
            changed: 1,
            allowToDeny: 1,
            denyToAllow: 0,
          },
          {
            configurationId: 2,
            startMs: T0 + 8 * HOUR_MS,
            widthMs: MINUTE_MS,
            evaluated: 1,
            changed: 0,
            allowToDeny: 0,
            denyToAllow: 0,
          },
        ],
        deadLetters: [{ configurationId: 1, reason: 'bad_json', messages: 3 }],
        disagreements: [
          {
            configurationId: 2,
            experiment: `${NAME}-other`,
            experimentEtag: 'O1',
            events: 2,
            topFlows: [],
            eventsOutsideFlows: 0,
          },
        ],
        coverageFlows: {
          configurationId: 2,
          flows: [
            {
              direction: 'INGRESS',
              srcIp: '10.0.1.1',
              destIp: '192.0.2.1',
              protocol: 'tcp',
              count: 2,
            },
          ],
        },
      }),
      {
        held: undefined,
        coverage: {
          versions,
          analysis: analyzeExperiment({ rules: LIVE }, { rules: TIGHTENED }, 'L1'),
        },
        lag: { pendingMessages: 0 },
      },
    );

    const [newest, oldest] = report.configurations;
    expect(newest).toMatchObject({
      experimentEtag: 'E2',
      liveRules: [{ rulePriority: 100, count: 10 }],
      experimentRules: [
        { rulePriority: 100, count: 8 },
        { rulePriority: 10, count: 2 },
      ],
      topChangedSources: [{ srcIp: '10.0.1.1', count: 2 }],
      topChangedSourcePrefixes: [
        { prefix: '10.0.1.0/24', prefixLength: 24, count: 2, flows: 1, addresses: 1 },
      ],
      topChangedDestinationPrefixes: [
        { prefix: '192.0.0.0/16', prefixLength: 16, count: 2, flows: 1, addresses: 1 },
      ],
      timeBuckets: [
        { startTime: '2026-11-24T00:00:00.000Z', width: 'HOUR', evaluated: 9 },
        { startTime: '2026-11-24T08:00:00.000Z', width: 'MINUTE', evaluated: 1 },
      ],
      disagreements: [{ experiment: `${NAME}-other`, experimentEtag: 'O1', events: 2 }],
      coverage: {
        untouchedRegions: [],
        unmatchedExperimentRules: [],
        changedByRegion: [
          {
            summary: 'all traffic from 10.0.1.0/24 is now denied',
            action: 'deny',
            events: 2,
            flows: 1,
            sources: 1,
          },
        ],
      },
      liveRuleUsage: {
        livePolicyEtag: 'L1',
        rules: [{ rulePriority: 100, action: 'allow', hits: 10 }],
        impliedHits: 0,
        unusedRules: [],
      },
      completeness: { complete: true },
    });
    expect(newest.disagreements?.[0]).not.toHaveProperty('configurationId');
    expect(oldest).toMatchObject({
      experimentEtag: 'E1',
      experimentRules: [],
      topChangedSources: [],
      timeBuckets: [],
      disagreements: [],
      completeness: { complete: false, deadLetteredMessages: 3 },
    });
    expect(oldest).not.toHaveProperty('coverage');
    expect(oldest).not.toHaveProperty('liveRuleUsage');
    expect(oldest.topChangedSourcePrefixes).toEqual([]);
  });

  it('judges the readiness gates on the configuration of the ACTIVE version, with the deny → allow counts read for it', () => {
    const gates = [{ noDenyToAllowFrom: '10.0.9.0/24' }, { minEvaluated: 10 }];
    const report = buildReport(
      NAME,
      rows({
        configurations: [configuration(2, { denyToAllow: 3, changed: 5 }), configuration(1)],
        denyToAllowFrom: new Map([['10.0.9.0/24', 3]]),
      }),
      { held: held({ readinessGates: gates }), lag: { pendingMessages: 0 } },
    );
    expect(report.readiness).toMatchObject({
      experimentEtag: 'E2',
      livePolicyEtag: 'L1',
      ready: false,
      gates: [
        { kind: 'noDenyToAllowFrom', value: 3, holds: false },
        { kind: 'minEvaluated', value: 10, holds: true },
      ],
    });
    expect(report.reportEtag).toMatch(/^[\w-]{16}\.[\w-]{16}$/);
  });
});

describe('buildReport: bounds', () => {
  it('lists the 20 experiments disagreeing on most events and counts the others', () => {
    const disagreements = Array.from({ length: 23 }, (_, i) => ({
      configurationId: 1,
      experiment: `${NAME}-other-${i}`,
      experimentEtag: `O${i}`,
      events: 100 - i,
      topFlows: [],
      eventsOutsideFlows: 0,
    }));
    const [only] = buildReport(NAME, rows({ configurations: [configuration(1)], disagreements }), {
      held: undefined,
      lag: undefined,
    }).configurations;
    expect(only.disagreements?.map((d) => d.events)).toEqual(
      Array.from({ length: 20 }, (_, i) => 100 - i),
    );
    expect(only.disagreementsOmitted).toBe(3);
  });

  it('fits configurations in a page by their bytes as JSON, always at least one', () => {
    const report = buildReport(
      NAME,
      rows({ configurations: [configuration(3), configuration(2), configuration(1)] }),
      { held: undefined, lag: undefined },
    );
    const one = JSON.stringify(report.configurations[0]).length;
    expect(configurationsWithin(report.configurations, 10 * one)).toBe(3);
    expect(configurationsWithin(report.configurations, 2 * one)).toBe(2);
    expect(configurationsWithin(report.configurations, 1)).toBe(1);
  });
});

describe('ruleCountMargins', () => {
  it("derives each configuration's rule counts from its transitions, adding what was stored before transitions were", () => {
    const margins = ruleCountMargins(
      [
        {
          configurationId: 1,
          livePriority: 100,
          liveAction: 'allow',
          experimentPriority: 10,
          experimentAction: 'deny',
          count: 2,
        },
        {
          configurationId: 1,
          livePriority: 100,
          liveAction: 'allow',
          experimentPriority: 100,
          experimentAction: 'allow',
          count: 8,
        },
        {
          configurationId: 2,
          livePriority: -1,
          liveAction: 'deny',
          experimentPriority: -1,
          experimentAction: 'deny',
          count: 3,
        },
      ],
      [{ configurationId: 1, side: 0, priority: 100, action: 'allow', count: 5 }],
    );
    const byKey = (r: { configurationId: number; side: number; priority: number }) =>
      `${r.configurationId}/${r.side}/${r.priority}`;
    expect(margins.map((r) => [byKey(r), r.action, r.count]).sort()).toEqual(
      [
        ['1/0/100', 'allow', 15],
        ['1/1/10', 'deny', 2],
        ['1/1/100', 'allow', 8],
        ['2/0/-1', 'deny', 3],
        ['2/1/-1', 'deny', 3],
      ].sort(),
    );
  });
});

describe('reportReading', () => {
  it("asks for coverage's flows only while both versions are held", () => {
    expect(reportReading(undefined, versions).coverageOf).toEqual({
      experimentEtag: 'E2',
      livePolicyEtag: 'L1',
    });
    expect(reportReading(held(), undefined)).toEqual({});
  });

  it('asks for each noDenyToAllowFrom range once, on the configuration readiness judges', () => {
    const gates = [
      { noDenyToAllowFrom: '10.0.9.0/24' },
      { minEvaluated: 1 },
      { noDenyToAllowFrom: '10.0.9.0/24' },
      { noDenyToAllowFrom: '192.168.0.0/16' },
    ];
    const reading = reportReading(held({ readinessGates: gates }), undefined);
    expect(reading.denyToAllowFrom?.ranges).toEqual(['10.0.9.0/24', '192.168.0.0/16']);
    const stored = [configuration(3, { experimentEtag: 'E3' }), configuration(2), configuration(1)];
    expect(reading.denyToAllowFrom?.judged(stored)?.id).toBe(2);
    expect(reportReading(held({ readinessGates: [{ minEvaluated: 1 }] }), undefined)).toEqual({});
  });
});
