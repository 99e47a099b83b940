import type { FirewallRule, TrafficEvent } from '@rollout/contracts';
import { compilePolicy, parseConnection } from '@rollout/domain/firewall';
import { BacktestTally, backtestView, displayAddress } from './backtest';
import { evaluateBatch } from './evaluation';
import type { TrafficToEvaluate } from './view-tally';
import type { HeldVersions } from './views';

const NAME = 'projects/acme/locations/global/firewallPolicies/web/experiments/block';
const allowTen: FirewallRule = {
  priority: 100,
  direction: 'INGRESS',
  action: 'allow',
  match: { srcIpRanges: ['10.0.0.0/8', '2001:db8::/32'] },
};
const denySsh: FirewallRule = {
  priority: 10,
  direction: 'INGRESS',
  action: 'deny',
  match: {
    srcIpRanges: ['10.0.1.0/24', '2001:db8::/32'],
    layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }],
  },
};
const versions: HeldVersions = {
  experimentEtag: 'E1',
  experimentRules: [denySsh, allowTen],
  liveEtag: 'L1',
  liveRules: [allowTen],
};
const view = backtestView(NAME, versions, compilePolicy)!;

let n = 0;
const traffic = (srcIp: string, time: string, destPort = 22) => {
  const event: TrafficEvent = {
    id: `e${n++}`,
    time,
    direction: 'INGRESS',
    srcIp,
    destIp: '192.0.2.1',
    protocol: 'tcp',
    srcPort: 40000 + n,
    destPort,
  };
  return { event, connection: parseConnection(event)!, timeMs: Date.parse(event.time) };
};
const tallyOf = (maxFlows: number, ...batches: TrafficToEvaluate[][]) => {
  const tally = new BacktestTally(maxFlows);
  for (const events of batches) {
    const message = { seq: 1, redelivered: false, decoded: { key: 'acme.global.web', events } };
    tally.add(evaluateBatch([message], new Set(), () => view));
  }
  return tally;
};

describe('a backtest tally', () => {
  it('adds up batches into one configuration of the preview report, whatever the batching', () => {
    const events = [
      traffic('10.0.1.1', '2025-06-01T00:00:01Z'),
      traffic('10.0.1.1', '2025-06-01T00:00:02Z'),
      traffic('10.0.2.1', '2025-06-01T00:00:03Z'),
      traffic('2001:db8::7', '2025-06-01T00:01:00Z'),
    ];
    const inOne = tallyOf(10, events).report(NAME, versions);
    const inTwo = tallyOf(10, events.slice(0, 1), events.slice(1)).report(NAME, versions);
    expect(inTwo).toEqual(inOne);
    const [configuration] = inOne.report.configurations;
    expect(configuration).toMatchObject({
      experimentEtag: 'E1',
      livePolicyEtag: 'L1',
      evaluated: 4,
      changed: 3,
      allowToDeny: 3,
      unchangedAllow: 1,
      flows: 2,
      changedOutsideFlows: 0,
    });
    expect(configuration.topChangedSources).toEqual([
      { srcIp: '10.0.1.1', count: 2 },
      { srcIp: '2001:db8::7', count: 1 },
    ]);
    expect(configuration.topChangedDestinationPorts).toEqual([
      { protocol: 'tcp', destPort: 22, count: 3 },
    ]);
    expect(configuration.liveRules).toEqual([
      { rulePriority: 100, implied: false, action: 'allow', count: 4 },
    ]);
    expect(configuration.experimentRules).toEqual([
      { rulePriority: 10, implied: false, action: 'deny', count: 3 },
      { rulePriority: 100, implied: false, action: 'allow', count: 1 },
    ]);
    expect(
      inOne.topChangedFlows.map((f) => [f.srcIp, f.count, f.samples.map((s) => s.eventTime)]),
    ).toEqual([
      ['10.0.1.1', 2, ['2025-06-01T00:00:01Z', '2025-06-01T00:00:02Z']],
      ['2001:db8::7', 1, ['2025-06-01T00:01:00Z']],
    ]);
  });

  it('keeps at most maxFlows changed flows and counts the changed events of the others outside them', () => {
    const tally = tallyOf(
      1,
      [traffic('10.0.1.1', '2025-06-01T00:00:01Z')],
      [traffic('10.0.1.2', '2025-06-01T00:00:02Z'), traffic('10.0.1.1', '2025-06-01T00:00:03Z')],
    );
    expect(tally.report(NAME, versions).report.configurations[0]).toMatchObject({
      changed: 3,
      flows: 1,
      changedOutsideFlows: 1,
      coverage: { exact: false },
    });
  });

  it('buckets by the minute for the 6 hours before the last event, by the hour before that', () => {
    const tally = tallyOf(10, [
      traffic('10.0.2.1', '2025-06-01T00:10:00Z'),
      traffic('10.0.2.1', '2025-06-01T00:20:00Z'),
      traffic('10.0.1.1', '2025-06-01T08:00:30Z'),
    ]);
    expect(tally.report(NAME, versions).report.configurations[0].timeBuckets).toEqual([
      {
        startTime: '2025-06-01T00:00:00.000Z',
        width: 'HOUR',
        evaluated: 2,
        changed: 0,
        allowToDeny: 0,
        denyToAllow: 0,
      },
      {
        startTime: '2025-06-01T08:00:00.000Z',
        width: 'MINUTE',
        evaluated: 1,
        changed: 1,
        allowToDeny: 1,
        denyToAllow: 0,
      },
    ]);
  });

  it('reports no configuration before the first event', () => {
    expect(new BacktestTally(10).report(NAME, versions)).toEqual({
      report: { name: NAME, configurations: [] },
      topChangedFlows: [],
    });
  });
});

describe('displayAddress', () => {
  it('writes IPv6 as Postgres writes an inet (the longest run of zero groups shortened), IPv4 as it is', () => {
    expect(
      [
        '2001:db8:0:0:0:0:0:7',
        '2001:db8:0:1:1:1:1:1',
        '0:0:0:0:0:0:0:1',
        '1:0:0:2:0:0:0:3',
        '10.0.0.1',
      ].map(displayAddress),
    ).toEqual(['2001:db8::7', '2001:db8:0:1:1:1:1:1', '::1', '1:0:0:2::3', '10.0.0.1']);
  });
});
