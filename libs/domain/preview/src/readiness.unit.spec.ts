import {
  FirewallPolicyExperiment,
  PreviewConfigurationReport,
  reportEtagMatters,
} from '@rollout/contracts';
import { completenessOf } from './completeness';
import {
  autoStopReason,
  judgeGate,
  judgedConfiguration,
  readinessOf,
  reportEtagOf,
} from './readiness';
import type { HeldExperiment } from './views';

const NAME = 'projects/acme/locations/global/firewallPolicies/edge/experiments/tighten';
const noFacts = { denyToAllowFrom: new Map<string, number>() };

function configuration(
  overrides: Partial<PreviewConfigurationReport> = {},
): PreviewConfigurationReport {
  return {
    experimentEtag: 'E1',
    livePolicyEtag: 'L1',
    evaluated: 1000,
    changed: 3,
    allowToDeny: 2,
    denyToAllow: 1,
    unchangedAllow: 900,
    unchangedDeny: 97,
    liveRules: [],
    experimentRules: [],
    topChangedSources: [],
    topChangedDestinationPorts: [],
    changedOutsideFlows: 0,
    completeness: completenessOf({
      deadLettered: [],
      redeliveredEvents: 0,
      trafficDroppedMessages: 0,
      trafficDropUndetermined: 0,
      lag: { pendingMessages: 0 },
    }),
    firstEventTime: '2026-11-24T00:00:00.000Z',
    lastEventTime: '2026-11-25T01:00:00.000Z',
    ...overrides,
  };
}

function experiment(overrides: Partial<FirewallPolicyExperiment> = {}): FirewallPolicyExperiment {
  return {
    name: NAME,
    firewallPolicy: { name: 'projects/acme/locations/global/firewallPolicies/edge', rules: [] },
    annotations: {},
    etag: 'E1',
    createTime: '2026-11-24T00:00:00.000Z',
    updateTime: '2026-11-24T00:00:00.000Z',
    previewMetadata: {
      state: 'ACTIVE',
      logPrefix: 'FirewallPolicyPreviewLog',
      startTime: '2026-11-24T00:00:00.000Z',
    },
    ...overrides,
  };
}

describe('judgeGate', () => {
  it('measures the preview duration as the span of event time', () => {
    expect(judgeGate({ minPreviewDuration: '24h' }, configuration(), noFacts)).toMatchObject({
      kind: 'minPreviewDuration',
      value: 90000,
      holds: true,
    });
    expect(judgeGate({ minPreviewDuration: '2d' }, configuration(), noFacts)).toMatchObject({
      value: 90000,
      holds: false,
    });
  });

  it('counts evaluated events against the minimum', () => {
    expect(judgeGate({ minEvaluated: 1000 }, configuration(), noFacts)).toMatchObject({
      value: 1000,
      holds: true,
      description: '1000 events evaluated; at least 1000 required.',
    });
    expect(judgeGate({ minEvaluated: 1001 }, configuration(), noFacts).holds).toBe(false);
  });

  it('compares the allow→deny share with the limit, exactly at the boundary', () => {
    expect(judgeGate({ maxAllowToDenyShare: 0.002 }, configuration(), noFacts)).toMatchObject({
      value: 0.002,
      holds: true,
      description: 'allow→deny is 0.2% of evaluated (2 of 1000); at most 0.2% allowed.',
    });
    expect(judgeGate({ maxAllowToDenyShare: 0.001 }, configuration(), noFacts).holds).toBe(false);
  });

  it('holds no capping gate on zero evidence', () => {
    const empty = configuration({ evaluated: 0, allowToDeny: 0, denyToAllow: 0, changed: 0 });
    expect(judgeGate({ maxAllowToDenyShare: 1 }, empty, noFacts).holds).toBe(false);
    expect(judgeGate({ noDenyToAllowFrom: '0.0.0.0/0' }, empty, noFacts).holds).toBe(false);
    expect(judgeGate({ maxCompletenessLoss: 0 }, undefined, noFacts).holds).toBe(false);
  });

  it('counts deny→allow from a range, and cannot clear it while changed events lie past the flow limit', () => {
    const facts = {
      denyToAllowFrom: new Map([
        ['10.0.0.0/8', 0],
        ['0.0.0.0/0', 1],
      ]),
    };
    expect(judgeGate({ noDenyToAllowFrom: '10.0.0.0/8' }, configuration(), facts)).toMatchObject({
      value: 0,
      holds: true,
    });
    expect(judgeGate({ noDenyToAllowFrom: '0.0.0.0/0' }, configuration(), facts)).toMatchObject({
      value: 1,
      holds: false,
    });
    const outside = judgeGate(
      { noDenyToAllowFrom: '10.0.0.0/8' },
      configuration({ changedOutsideFlows: 5 }),
      facts,
    );
    expect(outside).toMatchObject({ value: 0, holds: false });
    expect(outside.description).toContain('5 changed events past the flow limit may add more');
  });

  it('adds dead-lettered, dropped and undetermined messages up as the loss', () => {
    const completeness = completenessOf({
      deadLettered: [{ reason: 'bad_json', messages: 2 }],
      redeliveredEvents: 4,
      trafficDroppedMessages: 3,
      trafficDropUndetermined: 1,
      lag: { pendingMessages: 0 },
    });
    expect(
      judgeGate({ maxCompletenessLoss: 0 }, configuration({ completeness }), noFacts),
    ).toMatchObject({ value: 6, holds: false });
    expect(
      judgeGate({ maxCompletenessLoss: 6 }, configuration({ completeness }), noFacts),
    ).toMatchObject({ value: 6, holds: true });
    expect(judgeGate({ maxCompletenessLoss: 0 }, configuration(), noFacts)).toMatchObject({
      value: 0,
      holds: true,
    });
  });
});

describe('judgedConfiguration', () => {
  const older = configuration({ experimentEtag: 'E0', livePolicyEtag: 'L1' });
  const current = configuration();

  it('judges an ACTIVE preview on its current version against the current live policy, counted or not', () => {
    const held: HeldExperiment = {
      state: experiment(),
      lastEvent: 'PreviewStarted',
      liveEtag: 'L1',
      previewedEtag: 'E1',
    };
    expect(judgedConfiguration(held, [current, older])).toEqual({
      experimentEtag: 'E1',
      livePolicyEtag: 'L1',
      report: current,
    });
    expect(judgedConfiguration({ ...held, liveEtag: 'L2' }, [current, older])).toEqual({
      experimentEtag: 'E1',
      livePolicyEtag: 'L2',
      report: undefined,
    });
  });

  it('judges a stopped preview on the version that was ACTIVE, or the newest counts when that was not seen', () => {
    const stopped = experiment({
      etag: 'E2',
      previewMetadata: { state: 'SUSPENDED', logPrefix: 'FirewallPolicyPreviewLog' },
    });
    expect(
      judgedConfiguration(
        { state: stopped, lastEvent: 'PreviewStopped', liveEtag: 'L1', previewedEtag: 'E0' },
        [current, older],
      )?.report,
    ).toBe(older);
    expect(
      judgedConfiguration({ state: stopped, lastEvent: 'PreviewStopped', liveEtag: 'L1' }, [
        current,
        older,
      ])?.report,
    ).toBe(current);
  });

  it('judges nothing once the experiment changed since its preview', () => {
    const updated = experiment({
      etag: 'E3',
      previewMetadata: { state: 'SUSPENDED', logPrefix: 'FirewallPolicyPreviewLog' },
    });
    expect(
      judgedConfiguration({ state: updated, lastEvent: 'ExperimentUpdated', liveEtag: 'L1' }, [
        current,
      ]),
    ).toBeUndefined();
    expect(judgedConfiguration(undefined, [current])).toBeUndefined();
  });
});

describe('readinessOf and reportEtagOf', () => {
  const gates = [{ minEvaluated: 1000 }, { maxAllowToDenyShare: 0.001 }];
  const judged = { experimentEtag: 'E1', livePolicyEtag: 'L1', report: configuration() };

  it('is ready only when every gate holds, and says which configuration it judged', () => {
    const readiness = readinessOf(experiment({ readinessGates: gates }), judged, noFacts);
    expect(readiness).toMatchObject({
      currentExperimentEtag: 'E1',
      experimentEtag: 'E1',
      livePolicyEtag: 'L1',
      ready: false,
    });
    expect(readiness.gates.map((g) => g.holds)).toEqual([true, false]);
    expect(readinessOf(experiment(), judged, noFacts)).toMatchObject({ ready: true, gates: [] });
  });

  it('fails every gate of a version never previewed', () => {
    const readiness = readinessOf(experiment({ readinessGates: gates }), undefined, noFacts);
    expect(readiness.ready).toBe(false);
    expect(readiness.experimentEtag).toBeUndefined();
  });

  it('keeps what matters while counts move without flipping a gate, and changes it when a gate flips or the configuration changes', () => {
    const etag = (report: PreviewConfigurationReport, judgedOn = judged) => {
      const readiness = readinessOf(
        experiment({ readinessGates: gates }),
        { ...judgedOn, report },
        noFacts,
      );
      return reportEtagOf({ configurations: [report] }, readiness);
    };
    const first = etag(configuration());
    const moreTraffic = etag(configuration({ evaluated: 1001, unchangedAllow: 901 }));
    expect(moreTraffic).not.toBe(first);
    expect(reportEtagMatters(moreTraffic)).toBe(reportEtagMatters(first));
    // 1 of 1000 allow→deny: the share gate now holds.
    const flipped = etag(configuration({ allowToDeny: 1, changed: 2, unchangedAllow: 901 }));
    expect(reportEtagMatters(flipped)).not.toBe(reportEtagMatters(first));
    const otherLive = etag(configuration(), { ...judged, livePolicyEtag: 'L2' });
    expect(reportEtagMatters(otherLive)).not.toBe(reportEtagMatters(first));
    expect(first).toMatch(/^[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{16}$/);
  });

  it('reads the part that matters only from a well-formed reportEtag', () => {
    expect(reportEtagMatters('abcdefghijklmnop.0123456789abcdef')).toBe('abcdefghijklmnop');
    expect(reportEtagMatters('abcdefghijklmnop')).toBeUndefined();
    expect(reportEtagMatters(42)).toBeUndefined();
  });
});

describe('autoStopReason', () => {
  const now = new Date('2026-11-24T01:00:00.000Z');

  it('stops after the event count', () => {
    expect(
      autoStopReason(
        experiment({ stopAfter: { evaluatedEvents: 10 } }),
        { evaluated: 9, allowToDeny: 0 },
        now,
      ),
    ).toBeUndefined();
    expect(
      autoStopReason(
        experiment({ stopAfter: { evaluatedEvents: 10 } }),
        { evaluated: 10, allowToDeny: 0 },
        now,
      ),
    ).toBe('stopAfter: 10 events evaluated, the limit is 10');
  });

  it('stops after the duration since the preview started', () => {
    expect(
      autoStopReason(
        experiment({ stopAfter: { duration: '61m' } }),
        { evaluated: 0, allowToDeny: 0 },
        now,
      ),
    ).toBeUndefined();
    expect(
      autoStopReason(
        experiment({ stopAfter: { duration: '60m' } }),
        { evaluated: 0, allowToDeny: 0 },
        now,
      ),
    ).toBe('stopAfter: previewed for 3600s, the limit is 60m');
  });

  it('trips the breaker above the share once enough events were evaluated, before any stopAfter', () => {
    const breaker = { maxAllowToDenyShare: 0.05, minEvaluated: 20 };
    expect(
      autoStopReason(experiment({ breaker }), { evaluated: 19, allowToDeny: 19 }, now),
    ).toBeUndefined();
    expect(
      autoStopReason(experiment({ breaker }), { evaluated: 20, allowToDeny: 1 }, now),
    ).toBeUndefined();
    expect(
      autoStopReason(
        experiment({ breaker, stopAfter: { evaluatedEvents: 1 } }),
        { evaluated: 20, allowToDeny: 2 },
        now,
      ),
    ).toBe('breaker: allow→deny is 10% of evaluated (2 of 20), above 5%');
    expect(
      autoStopReason(
        experiment({ breaker: { maxAllowToDenyShare: 0.05 } }),
        { evaluated: 99, allowToDeny: 99 },
        now,
      ),
    ).toBeUndefined();
  });
});
