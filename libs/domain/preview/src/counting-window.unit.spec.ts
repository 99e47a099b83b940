import type { FirewallRule, TrafficEvent } from '@rollout/contracts';
import { parseConnection } from '@rollout/domain/firewall';
import { CountingWindow } from './counting-window';
import { TrafficMessage, evaluateBatch } from './evaluation';
import type { ConfigurationBatch } from './view-tally';
import type { PolicyView } from './views';
import { activeExperiment, allowTen, denySsh, policyView } from '../test/example-views';

const openAll: FirewallRule = {
  priority: 5,
  direction: 'INGRESS',
  action: 'allow',
  match: { srcIpRanges: ['0.0.0.0/0'] },
};

// Every call compiles anew: two views of one state are two sets of objects, as after a state change.
const view = (): PolicyView =>
  policyView([
    activeExperiment('block', [denySsh, allowTen]),
    activeExperiment('noop', []),
    activeExperiment('open', [openAll]),
  ]);

let state = 11;
const random = (n: number) => {
  state = (state * 1103515245 + 12345) & 0x7fffffff;
  return state % n;
};
let n = 0;
const message = (seq: number, events: number): TrafficMessage => ({
  seq,
  redelivered: random(5) === 0,
  decoded: {
    key: 'acme.global.web',
    events: Array.from({ length: events }, () => {
      const event: TrafficEvent = {
        id: `e${n++}`,
        time: `2025-06-01T00:0${random(3)}:${String(random(60)).padStart(2, '0')}Z`,
        direction: 'INGRESS',
        srcIp: `10.0.${random(4)}.${random(3)}`,
        destIp: '192.0.2.1',
        protocol: 'tcp',
        srcPort: 40000 + random(1000),
        destPort: [22, 443, 23][random(3)],
      };
      return { event, connection: parseConnection(event)!, timeMs: Date.parse(event.time) };
    }),
  },
});

/** A configuration's tallies as plain values, to compare whatever objects they were built from. */
const plain = (batch: ConfigurationBatch) => ({
  configuration: batch.target.keys.configuration,
  totals: { ...batch.totals, minutes: [...batch.totals.minutes] },
  redelivered: batch.redelivered,
});

describe('a counting window', () => {
  it('given batches evaluated under different views of one state, when merged, then counts what one batch of them all would', () => {
    const messages = Array.from({ length: 40 }, (_, i) => message(i + 1, 1 + random(30)));
    const one = view();
    const whole = evaluateBatch(messages, new Set(), () => one);
    const window = new CountingWindow();
    for (let from = 0; from < messages.length; from += 7) {
      const current = view();
      window.add(evaluateBatch(messages.slice(from, from + 7), new Set(), () => current));
    }
    const merged = window.counting;

    expect(merged.configurations.map(plain)).toEqual(whole.configurations.map(plain));
    expect(merged.countedSeqs).toEqual(whole.countedSeqs);
    expect(merged.cohorts).toHaveLength(1);
    expect(merged.cohorts[0].outcomes).toEqual(whole.cohorts[0].outcomes);
    expect(merged.cohorts[0].masks).toEqual(whole.cohorts[0].masks);
    expect(merged.cohorts[0].flows).toEqual(whole.cohorts[0].flows);
    // The cohort names the window's own configurations, which the store maps to row ids.
    expect(merged.cohorts[0].targets).toEqual(merged.configurations.map((c) => c.target));
    expect([window.batches, window.events]).toEqual([6, whole.evaluatedEvents]);
  });

  it('says when a batch carries a sequence it holds already (a redelivery that overtook its first delivery)', () => {
    const window = new CountingWindow();
    window.add(evaluateBatch([message(1, 2), message(2, 2)], new Set(), () => view()));
    expect(window.overlaps([3, 4])).toBe(false);
    expect(window.overlaps([2, 3])).toBe(true);
  });

  it('keeps dead letters of every batch', () => {
    const window = new CountingWindow();
    const refused: TrafficMessage = {
      seq: 9,
      redelivered: false,
      decoded: { kind: 'invalid', reason: 'bad', key: 'acme.global.web' },
    };
    window.add(evaluateBatch([refused], new Set(), () => view()));
    window.add(evaluateBatch([{ ...refused, seq: 10 }], new Set(), () => view()));
    expect(window.counting.deadLetters).toHaveLength(2);
    expect(window.counting.configurations.map((c) => c.deadLettered.get('invalid'))).toEqual([
      2, 2, 2,
    ]);
  });
});
