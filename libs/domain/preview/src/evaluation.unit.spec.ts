import type { FirewallRule, TrafficEvent } from '@rollout/contracts';
import { compilePolicy, parseConnection } from '@rollout/domain/firewall';
import { Evaluation, addressText, aggregate, aggregateMessages, evaluate } from './evaluation';
import { recordKeys } from './records';
import type { ActiveExperiment, PolicyView } from './state';

const POLICY = 'projects/acme/locations/global/firewallPolicies/web';
const allowTen: FirewallRule = {
  priority: 100,
  direction: 'INGRESS',
  action: 'allow',
  match: { srcIpRanges: ['10.0.0.0/8'] },
};
const denySsh: FirewallRule = {
  priority: 10,
  direction: 'INGRESS',
  action: 'deny',
  match: { srcIpRanges: ['10.0.1.0/24'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] },
};

const experiment = (id: string, rules: FirewallRule[], liveEtag = 'L1'): ActiveExperiment => ({
  name: `${POLICY}/experiments/${id}`,
  etag: `${id}-E1`,
  logSubject: `preview.v1.logs.acme.global.web.${id}`,
  policy: compilePolicy({ rules }),
  liveEtag,
  keys: recordKeys(`${POLICY}/experiments/${id}`, `${id}-E1`, POLICY, liveEtag),
});
const view = (active: ActiveExperiment[]): PolicyView => ({
  name: POLICY,
  etag: 'L1',
  live: compilePolicy({ rules: [allowTen] }),
  active,
});

let n = 0;
const traffic = (overrides: Partial<TrafficEvent> = {}) => {
  const event: TrafficEvent = {
    id: `e${n++}`,
    time: `2025-06-01T00:00:${String(n % 60).padStart(2, '0')}Z`,
    direction: 'INGRESS',
    srcIp: '10.0.1.5',
    destIp: '192.0.2.1',
    protocol: 'tcp',
    srcPort: 40000 + n,
    destPort: 22,
    ...overrides,
  };
  return { event, connection: parseConnection(event)!, timeMs: Date.parse(event.time) };
};

describe('evaluate', () => {
  it('decides the live policy and each ACTIVE experiment, in the order of the view', () => {
    const v = view([experiment('block', [denySsh, allowTen]), experiment('noop', [])]);
    const e = evaluate(v, traffic());
    expect(e.live).toEqual({ action: 'allow', rulePriority: 100, implied: false });
    expect(e.experiments).toEqual([
      { action: 'deny', rulePriority: 10, implied: false },
      { action: 'deny', rulePriority: null, implied: true },
    ]);
  });
});

describe('aggregate', () => {
  const block = experiment('block', [denySsh, allowTen]);
  const v = view([block]);

  it('counts every evaluation in the totals and only changed ones in flows, one flow per connection without source port', () => {
    const evaluations: Evaluation[] = [
      evaluate(v, traffic({ srcPort: 1 })),
      evaluate(v, traffic({ srcPort: 2 })),
      evaluate(v, traffic({ srcIp: '10.0.2.5' })), // allowed by both: no flow
      evaluate(v, traffic({ srcIp: '10.0.1.6' })),
    ];
    const [batch] = aggregate(evaluations);
    expect(batch.target).toBe(block);
    expect(batch.totals).toMatchObject({
      evaluated: 4,
      changed: 3,
      allowToDeny: 3,
      unchangedAllow: 1,
    });
    const flows = [...batch.flows.values()];
    expect(
      flows.map((f) => [
        f.srcIp,
        f.destIp,
        f.protocol,
        f.destPort,
        f.count,
        f.live.rulePriority,
        f.experiment.rulePriority,
      ]),
    ).toEqual([
      ['10.0.1.5', '192.0.2.1', 'tcp', 22, 2, 100, 10],
      ['10.0.1.6', '192.0.2.1', 'tcp', 22, 1, 100, 10],
    ]);
    expect(flows[0].samples.map((s) => [s.trafficEventId, s.srcPort])).toEqual([
      [evaluations[0].event.id, 1],
      [evaluations[1].event.id, 2],
    ]);
  });

  it('makes one flow of any spelling of an address or protocol, keeps at most five samples and the first and last time', () => {
    const open = experiment('open', [
      { priority: 1, direction: 'INGRESS', action: 'allow', match: { srcIpRanges: ['::/0'] } },
    ]);
    const spellings = ['2001:db8::1', '2001:DB8:0:0:0:0:0:1', '2001:db8:0::1'];
    const evaluations = Array.from({ length: 9 }, (_, i) =>
      evaluate(
        view([open]),
        traffic({
          srcIp: spellings[i % 3],
          protocol: i % 2 ? 'tcp' : 6,
          direction: 'INGRESS',
          time: `2025-06-01T00:00:0${9 - i}Z`,
        }),
      ),
    );
    const [batch] = aggregate(evaluations);
    expect(batch.flows.size).toBe(1);
    const [flow] = batch.flows.values();
    expect(flow).toMatchObject({
      srcIp: '2001:db8:0:0:0:0:0:1',
      protocol: 'tcp',
      count: 9,
      firstMs: Date.parse('2025-06-01T00:00:01Z'),
      lastMs: Date.parse('2025-06-01T00:00:09Z'),
    });
    expect(flow.samples.map((s) => s.trafficEventId)).toEqual(
      evaluations.slice(0, 5).map((e) => e.event.id),
    );
  });

  it('makes one flow of an IPv4 address and its IPv4-mapped IPv6 spelling, written as IPv4', () => {
    const closed = experiment('closed', [
      { priority: 1, direction: 'INGRESS', action: 'deny', match: { srcIpRanges: ['0.0.0.0/0'] } },
    ]);
    const [batch] = aggregate(
      ['10.0.1.5', '::ffff:10.0.1.5', '::ffff:a00:105'].map((srcIp) =>
        evaluate(view([closed]), traffic({ srcIp })),
      ),
    );
    expect([...batch.flows.values()].map((f) => [f.srcIp, f.count])).toEqual([['10.0.1.5', 3]]);
  });

  it('keeps configurations apart: another live policy version is another configuration', () => {
    const older = experiment('block', [denySsh, allowTen], 'L0');
    const batches = aggregate([
      evaluate(view([older]), traffic()),
      evaluate(v, traffic()),
      evaluate(v, traffic()),
    ]);
    expect(batches.map((b) => [b.target.liveEtag, b.totals.evaluated])).toEqual([
      ['L0', 1],
      ['L1', 2],
    ]);
  });

  it('splits flows by deciding rules and leaves the port out for protocols without one', () => {
    const icmp = traffic({ protocol: 'icmp', destPort: undefined, srcPort: undefined });
    const [batch] = aggregate([evaluate(view([experiment('noop', [])]), icmp)]);
    const [flow] = batch.flows.values();
    expect(flow.destPort).toBeUndefined();
    expect(flow.protocol).toBe('icmp');
    expect(flow.samples).toEqual([{ trafficEventId: icmp.event.id, eventTime: icmp.event.time }]);
  });
});

describe('aggregateMessages', () => {
  it('counts the events of redelivered messages and the dead-lettered messages of every ACTIVE configuration of their policy', () => {
    const block = experiment('block', [denySsh, allowTen]);
    const noop = experiment('noop', []);
    const v = view([block, noop]);
    const batches = aggregateMessages(
      [
        { evaluations: [evaluate(v, traffic()), evaluate(v, traffic())], redelivered: true },
        { evaluations: [evaluate(v, traffic())], redelivered: false },
      ],
      [
        { reason: 'invalid_event', targets: [block, noop] },
        { reason: 'invalid_event', targets: [block] },
        { reason: 'bad_json', targets: [block] },
      ],
    );
    expect(
      batches.map((b) => [
        b.target.name,
        b.totals.evaluated,
        b.redelivered,
        Object.fromEntries(b.deadLettered),
      ]),
    ).toEqual([
      [block.name, 3, 2, { invalid_event: 2, bad_json: 1 }],
      [noop.name, 3, 2, { invalid_event: 1 }],
    ]);
  });

  it('counts, for each of two ACTIVE experiments, the events the other decides differently, by flow', () => {
    const block = experiment('block', [denySsh, allowTen]);
    const noop = experiment('noop', []);
    const v = view([block, noop]);
    const evaluations = [
      traffic(), // both deny: 10.0.1.5 → 22 is blocked by one, implied-denied by the other
      traffic({ srcIp: '10.0.2.5' }),
      traffic({ srcIp: '10.0.2.5' }),
      traffic({ srcIp: '10.0.3.9', destPort: 443 }),
    ].map((t) => evaluate(v, t));
    const [blockBatch, noopBatch] = aggregateMessages([{ evaluations, redelivered: false }], []);
    const summary = (b: ReturnType<typeof aggregateMessages>[number]) =>
      [...b.disagreements.values()].map((d) => [
        d.other.name,
        d.events,
        [...d.flows.values()].map((f) => [f.srcIp, f.destPort, f.action, f.count]),
      ]);
    expect(summary(blockBatch)).toEqual([
      [
        noop.name,
        3,
        [
          ['10.0.2.5', 22, 'allow', 2],
          ['10.0.3.9', 443, 'allow', 1],
        ],
      ],
    ]);
    expect(summary(noopBatch)).toEqual([
      [
        block.name,
        3,
        [
          ['10.0.2.5', 22, 'deny', 2],
          ['10.0.3.9', 443, 'deny', 1],
        ],
      ],
    ]);
  });

  it('makes a configuration that only lost messages, with nothing evaluated', () => {
    const block = experiment('block', [denySsh, allowTen]);
    const [batch] = aggregateMessages([], [{ reason: 'bad_json', targets: [block] }]);
    expect([
      batch.totals.evaluated,
      batch.flows.size,
      Object.fromEntries(batch.deadLettered),
    ]).toEqual([0, 0, { bad_json: 1 }]);
  });
});

describe('addressText', () => {
  it('writes IPv4 dotted and IPv6 as eight groups', () => {
    expect(addressText(4, 0x0a000105, 0, 0, 0)).toBe('10.0.1.5');
    expect(addressText(4, 0xffffffff, 0, 0, 0)).toBe('255.255.255.255');
    expect(addressText(6, 0x20010db8, 0, 0, 1)).toBe('2001:db8:0:0:0:0:0:1');
  });
});
