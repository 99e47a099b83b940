import type { TrafficEvent } from '@rollout/contracts';
import { compilePolicy, parseConnection } from '@rollout/domain/firewall';
import { TrafficMessage, RefusedTraffic, evaluateBatch } from './evaluation';
import { FlowTally, addressText } from './flows';
import { evaluatorOf, memberTransitions } from './outcome';
import { ruleCountMargins } from './report';
import { ConfigurationBatch, TrafficToEvaluate, memberFlows } from './view-tally';
import type { PolicyView } from './views';
import { activeExperiment, allowTen, denySsh, policyView } from '../test/example-views';

const experiment = activeExperiment;
const view = policyView;

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

const KEY = 'acme.global.web';
let seq = 0;
const message = (events: TrafficToEvaluate[], redelivered = false): TrafficMessage => ({
  seq: ++seq,
  redelivered,
  decoded: { key: KEY, events },
});
/** Evaluates one message of these events against `v`, as the traffic path does. */
const configurationsOf = (v: PolicyView, events: TrafficToEvaluate[]): ConfigurationBatch[] =>
  evaluateBatch([message(events)], new Set(), () => v).configurations;
/** The changed flows of `v`'s first configuration, derived from its cohort's flows as the report reads them. */
const flowsOf = (v: PolicyView, events: TrafficToEvaluate[]): FlowTally[] =>
  memberFlows(evaluateBatch([message(events)], new Set(), () => v).cohorts[0].flows.values(), 0);

describe('a view evaluator', () => {
  it('decides the live policy and each ACTIVE experiment in one call, in the order of the view', () => {
    const v = view([experiment('block', [denySsh, allowTen]), experiment('noop', [])]);
    const outcome = evaluatorOf(v).evaluate(traffic().connection);
    expect(outcome.live).toEqual({ action: 'allow', rulePriority: 100, implied: false });
    expect(outcome.experiments).toEqual([
      { action: 'deny', rulePriority: 10, implied: false },
      { action: 'deny', rulePriority: null, implied: true },
    ]);
    expect([outcome.changes, outcome.split, outcome.denyMask]).toEqual([true, false, 0b11]);
  });

  it('hands out one outcome for connections decided alike, and another for another decision', () => {
    const evaluator = evaluatorOf(view([experiment('block', [denySsh, allowTen])]));
    const ssh = evaluator.evaluate(traffic({ srcPort: 1 }).connection);
    expect(evaluator.evaluate(traffic({ srcPort: 2, srcIp: '10.0.1.9' }).connection)).toBe(ssh);
    expect(evaluator.evaluate(traffic({ srcIp: '10.0.2.5' }).connection)).not.toBe(ssh);
  });
});

describe('evaluating a batch', () => {
  const block = experiment('block', [denySsh, allowTen]);
  const v = view([block]);

  it('counts every event in the totals and only changed ones in flows, one flow per connection without source port', () => {
    const events = [
      traffic({ srcPort: 1 }),
      traffic({ srcPort: 2 }),
      traffic({ srcIp: '10.0.2.5' }), // allowed by both: no flow
      traffic({ srcIp: '10.0.1.6' }),
    ];
    const [batch] = configurationsOf(v, events);
    expect(batch.target).toBe(block);
    expect(batch.totals).toMatchObject({
      evaluated: 4,
      changed: 3,
      allowToDeny: 3,
      unchangedAllow: 1,
    });
    const flows = flowsOf(v, events);
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
      [events[0].event.id, 1],
      [events[1].event.id, 2],
    ]);
  });

  it('makes one flow of any spelling of an address or protocol, keeps at most five samples and the first and last time', () => {
    const open = experiment('open', [
      { priority: 1, direction: 'INGRESS', action: 'allow', match: { srcIpRanges: ['::/0'] } },
    ]);
    const spellings = ['2001:db8::1', '2001:DB8:0:0:0:0:0:1', '2001:db8:0::1'];
    const events = Array.from({ length: 9 }, (_, i) =>
      traffic({
        srcIp: spellings[i % 3],
        protocol: i % 2 ? 'tcp' : 6,
        direction: 'INGRESS',
        time: `2025-06-01T00:00:0${9 - i}Z`,
      }),
    );
    const flows = flowsOf(view([open]), events);
    expect(flows).toHaveLength(1);
    const [flow] = flows;
    expect(flow).toMatchObject({
      srcIp: '2001:db8:0:0:0:0:0:1',
      protocol: 'tcp',
      count: 9,
      firstMs: Date.parse('2025-06-01T00:00:01Z'),
      lastMs: Date.parse('2025-06-01T00:00:09Z'),
    });
    expect(flow.samples.map((s) => s.trafficEventId)).toEqual(
      events.slice(0, 5).map((e) => e.event.id),
    );
  });

  it('makes one flow of an IPv4 address and its IPv4-mapped IPv6 spelling, written as IPv4', () => {
    const closed = experiment('closed', [
      { priority: 1, direction: 'INGRESS', action: 'deny', match: { srcIpRanges: ['0.0.0.0/0'] } },
    ]);
    const flows = flowsOf(
      view([closed]),
      ['10.0.1.5', '::ffff:10.0.1.5', '::ffff:a00:105'].map((srcIp) => traffic({ srcIp })),
    );
    expect(flows.map((f) => [f.srcIp, f.count])).toEqual([['10.0.1.5', 3]]);
  });

  it('keeps configurations apart: another live policy version is another configuration', () => {
    const older = view([experiment('block', [denySsh, allowTen], 'L0')]);
    const messages = [
      { ...message([traffic()]), decoded: { key: 'acme.global.old', events: [traffic()] } },
      message([traffic(), traffic()]),
    ];
    const { configurations } = evaluateBatch(messages, new Set(), (key) =>
      key === KEY ? v : older,
    );
    expect(configurations.map((b) => [b.target.liveEtag, b.totals.evaluated])).toEqual([
      ['L0', 1],
      ['L1', 2],
    ]);
  });

  it('splits flows by deciding rules and leaves the port out for protocols without one', () => {
    const icmp = traffic({ protocol: 'icmp', destPort: undefined, srcPort: undefined });
    const [flow] = flowsOf(view([experiment('noop', [])]), [icmp]);
    expect(flow.destPort).toBeUndefined();
    expect(flow.protocol).toBe('icmp');
    expect(flow.samples).toEqual([{ trafficEventId: icmp.event.id, eventTime: icmp.event.time }]);
  });

  it('counts minute buckets and the first and last event time of the events, whatever their order', () => {
    const times = ['2025-06-01T00:01:30Z', '2025-06-01T00:00:10Z', '2025-06-01T00:01:05Z'];
    const [batch] = configurationsOf(
      v,
      times.map((time) => traffic({ time })),
    );
    expect(
      [...batch.totals.minutes].map(([minute, b]) => [new Date(minute).toISOString(), b.evaluated]),
    ).toEqual([
      ['2025-06-01T00:01:00.000Z', 2],
      ['2025-06-01T00:00:00.000Z', 1],
    ]);
    expect([batch.totals.firstEventMs, batch.totals.lastEventMs]).toEqual([
      Date.parse(times[1]),
      Date.parse(times[0]),
    ]);
  });

  it('evaluates the same event id once per policy in a batch, and skips messages counted before', () => {
    const again = traffic();
    const counted = message([traffic(), traffic()]);
    const outcome = evaluateBatch(
      [message([again]), message([again]), counted],
      new Set([counted.seq]),
      () => v,
    );
    expect(outcome.configurations[0].totals.evaluated).toBe(1);
    expect([outcome.countedMessages, outcome.duplicateMessages, outcome.evaluatedEvents]).toEqual([
      2, 1, 1,
    ]);
    expect(outcome.countedSeqs).not.toContain(counted.seq);
  });

  it('refuses a message of an unknown policy, tallying nothing of it and recording it as a dead letter once', () => {
    const typo = message([traffic()]);
    const outcome = evaluateBatch([typo], new Set(), () => undefined);
    expect(outcome.refused.map((r) => [r.index, r.refusal.kind, r.refusal.reason])).toEqual([
      [0, 'unknown_policy', 'no live policy projects/acme/locations/global/firewallPolicies/web'],
    ]);
    expect([outcome.configurations, outcome.settledEvents]).toEqual([[], 0]);
    expect(outcome.deadLetters).toEqual([
      {
        key: KEY,
        kind: 'unknown_policy',
        reason: 'no live policy projects/acme/locations/global/firewallPolicies/web',
      },
    ]);
    expect(outcome.countedSeqs).toEqual([typo.seq]);

    // Redelivered once recorded (its dead-letter publish failed): dead-lettered again, recorded no more.
    const again = evaluateBatch([typo], new Set([typo.seq]), () => undefined);
    expect(again.refused.map((r) => r.refusal.kind)).toEqual(['unknown_policy']);
    expect([again.deadLetters, again.countedSeqs, again.duplicateMessages]).toEqual([[], [], 0]);
  });

  it('records refused messages of a named policy, not those whose subject names none', () => {
    const outcome = evaluateBatch(
      [
        { seq: ++seq, redelivered: false, decoded: { kind: 'bad_subject', reason: 'no project' } },
        {
          seq: ++seq,
          redelivered: false,
          decoded: { kind: 'bad_address', reason: 'not an address', key: KEY },
        },
      ],
      new Set(),
      () => undefined,
    );
    expect(outcome.refused).toHaveLength(2);
    expect(outcome.deadLetters).toEqual([
      { key: KEY, kind: 'bad_address', reason: 'not an address' },
    ]);
    expect(outcome.countedSeqs).toEqual([seq]);
  });

  it('counts the events of redelivered messages and the refused messages of every ACTIVE configuration of their policy', () => {
    const noop = experiment('noop', []);
    const both = view([block, noop]);
    const refused = (kind: string): TrafficMessage => ({
      seq: ++seq,
      redelivered: false,
      decoded: { kind, reason: `a ${kind}`, key: KEY } satisfies RefusedTraffic,
    });
    const outcome = evaluateBatch(
      [
        message([traffic(), traffic()], true),
        message([traffic()]),
        refused('invalid_event'),
        refused('bad_json'),
      ],
      new Set(),
      () => both,
    );
    expect(
      outcome.configurations.map((b) => [
        b.target.name,
        b.totals.evaluated,
        b.redelivered,
        Object.fromEntries(b.deadLettered),
      ]),
    ).toEqual([
      [block.name, 3, 2, { invalid_event: 1, bad_json: 1 }],
      [noop.name, 3, 2, { invalid_event: 1, bad_json: 1 }],
    ]);
    expect(outcome.refused.map((r) => r.index)).toEqual([2, 3]);
    expect(outcome.countedSeqs).toHaveLength(4);
  });

  it('refuses a whole message when the engine cannot evaluate one of its events, tallying none of them', () => {
    const throwing = experiment('block', []);
    const broken: PolicyView = {
      ...view([throwing]),
      live: {
        ...compilePolicy({}),
        evaluateParsed: (c) => {
          if (c.portKey === 23) throw new RangeError('no telnet here');
          return compilePolicy({ rules: [allowTen] }).evaluateParsed(c);
        },
      },
    };
    const outcome = evaluateBatch(
      [message([traffic(), traffic({ destPort: 23 })]), message([traffic()])],
      new Set(),
      () => broken,
    );
    expect(outcome.refused.map((r) => [r.index, r.refusal.kind, r.refusal.reason])).toEqual([
      [0, 'unevaluable', 'cannot evaluate: no telnet here'],
    ]);
    expect(outcome.configurations[0].totals.evaluated).toBe(1);
    expect(Object.fromEntries(outcome.configurations[0].deadLettered)).toEqual({ unevaluable: 1 });
  });

  it('gives the cohort of two ACTIVE experiments the events and connections they decide differently, by mask', () => {
    const noop = experiment('noop', []);
    const both = view([block, noop]);
    const events = [
      traffic(), // both deny: 10.0.1.5 → 22 is blocked by one, implied-denied by the other
      traffic({ srcIp: '10.0.2.5' }),
      traffic({ srcIp: '10.0.2.5' }),
      traffic({ srcIp: '10.0.3.9', destPort: 443 }),
    ];
    const { cohorts } = evaluateBatch([message(events)], new Set(), () => both);
    expect(cohorts).toHaveLength(1);
    const [cohort] = cohorts;
    expect(cohort.targets).toEqual([block, noop]);
    // block allows (bit 0 clear), noop denies (bit 1 set).
    expect(Object.fromEntries(cohort.masks)).toEqual({ 2: 3 });
    // Its flows are every connection one of them changes or they split on, once, by outcome.
    expect([...cohort.flows.values()].map((f) => [f.srcIp, f.destPort, f.mask, f.count])).toEqual([
      ['10.0.1.5', 22, 3, 1],
      ['10.0.2.5', 22, 2, 2],
      ['10.0.3.9', 443, 2, 1],
    ]);
  });

  it('tallies exactly what evaluating every event alone would, for any batch (seeded random traffic)', () => {
    const experiments = [
      experiment('block', [denySsh, allowTen]),
      experiment('noop', []),
      experiment('open', [
        {
          priority: 4,
          direction: 'INGRESS',
          action: 'deny',
          match: { srcSecureTags: [{ name: 'k8s:app=scanner' }] },
        },
        {
          priority: 5,
          direction: 'INGRESS',
          action: 'allow',
          match: { srcIpRanges: ['0.0.0.0/0'] },
        },
      ]),
    ];
    const v3 = view(experiments);
    let state = 7;
    const random = (n: number) => {
      state = (state * 1103515245 + 12345) & 0x7fffffff;
      return state % n;
    };
    const events = Array.from({ length: 500 }, () =>
      traffic({
        srcIp: `10.0.${random(4)}.${random(3)}`,
        destPort: [22, 443, 23][random(3)],
        time: `2025-06-01T00:0${random(3)}:${String(random(60)).padStart(2, '0')}Z`,
        // The generator's low bits repeat with a short period: the choice reads high ones.
        srcSecureTags: [
          [],
          ['k8s:app=scanner'],
          ['k8s:app=web', 'k8s:app=scanner'],
          ['k8s:app=web'],
        ][Math.floor(random(4000) / 1000)],
      }),
    );
    // Source tags decide some events, or the draw would not exercise them.
    const byTag = events.filter(
      (e) => experiments[2].policy.evaluateParsed(e.connection).rulePriority === 4,
    ).length;
    expect(byTag).toBeGreaterThan(100);
    expect(byTag).toBeLessThan(400);
    const { configurations, cohorts } = evaluateBatch([message(events)], new Set(), () => v3);
    const [cohort] = cohorts;
    experiments.forEach((target, i) => {
      const expected = {
        evaluated: 0,
        changed: 0,
        flows: new Map<string, number>(),
        transitions: new Map<string, number>(),
        ruleCounts: new Map<string, number>(),
      };
      const countRule = (side: number, priority: number | null, action: string) => {
        const key = `${side}:${priority ?? -1}${action}`;
        expected.ruleCounts.set(key, (expected.ruleCounts.get(key) ?? 0) + 1);
      };
      for (const e of events) {
        const live = v3.live.evaluateParsed(e.connection);
        const mine = target.policy.evaluateParsed(e.connection);
        expected.evaluated++;
        const transition = `${live.rulePriority ?? -1}${live.action}>${mine.rulePriority ?? -1}${mine.action}`;
        expected.transitions.set(transition, (expected.transitions.get(transition) ?? 0) + 1);
        countRule(0, live.rulePriority, live.action);
        countRule(1, mine.rulePriority, mine.action);
        if (live.action === mine.action) continue;
        expected.changed++;
        const key = `${e.event.srcIp}|${e.event.destPort}|${live.rulePriority}|${mine.rulePriority}`;
        expected.flows.set(key, (expected.flows.get(key) ?? 0) + 1);
      }
      const batch = configurations[i];
      expect(batch.target).toBe(target);
      expect([batch.totals.evaluated, batch.totals.changed]).toEqual([
        expected.evaluated,
        expected.changed,
      ]);
      // Its changed flows, derived from the cohort's flows as the report reads them.
      const flows = new Map(
        memberFlows(cohort.flows.values(), i).map((f) => [
          `${f.srcIp}|${f.destPort}|${f.live.rulePriority}|${f.experiment.rulePriority}`,
          f.count,
        ]),
      );
      expect(flows).toEqual(expected.flows);
      // The configuration's rule transitions, derived from the cohort's outcomes as the report reads them.
      const derived = new Map(
        memberTransitions(cohort.outcomes.values(), i).map((t) => [
          `${t.livePriority}${t.liveAction}>${t.experimentPriority}${t.experimentAction}`,
          t.count,
        ]),
      );
      expect(derived).toEqual(expected.transitions);
      // And its rule counts (liveRules, experimentRules), the margins of those transitions.
      const margins = ruleCountMargins(
        memberTransitions(cohort.outcomes.values(), i).map((t) => ({ ...t, configurationId: i })),
      );
      expect(new Map(margins.map((r) => [`${r.side}:${r.priority}${r.action}`, r.count]))).toEqual(
        expected.ruleCounts,
      );
    });
    // Every pair's disagreement, from the masks, is the events the two decide differently.
    for (let a = 0; a < 3; a++)
      for (let b = 0; b < 3; b++) {
        if (a === b) continue;
        const expected = events.filter(
          (e) =>
            experiments[a].policy.evaluateParsed(e.connection).action !==
            experiments[b].policy.evaluateParsed(e.connection).action,
        ).length;
        const fromMasks = [...cohort.masks]
          .filter(([mask]) => ((mask >> a) & 1) !== ((mask >> b) & 1))
          .reduce((sum, [, events]) => sum + events, 0);
        expect(fromMasks).toBe(expected);
      }
  });
});

describe('addressText', () => {
  it('writes IPv4 dotted and IPv6 as eight groups', () => {
    expect(addressText(4, 0x0a000105, 0, 0, 0)).toBe('10.0.1.5');
    expect(addressText(4, 0xffffffff, 0, 0, 0)).toBe('255.255.255.255');
    expect(addressText(6, 0x20010db8, 0, 0, 1)).toBe('2001:db8:0:0:0:0:0:1');
  });
});
