import type {
  CompactPolicyPreviewLog,
  PolicyPreviewLogBatch,
  PreviewLogBatch,
  PreviewVerdict,
  TrafficEvent,
} from '@rollout/contracts';
import { expandCompactPolicyPreviewLog } from '@rollout/contracts';
import { compilePolicy, parseConnection } from '@rollout/domain/firewall';
import {
  ActiveExperiment,
  Outcome,
  PolicyView,
  ViewLog,
  compactEventRow,
  compactOutcomeJson,
  compactPolicyLogHead,
  evaluatorOf,
  previewRecord,
  recordKeys,
} from '@rollout/domain/preview';
import { policyLogBatch } from '../../test/policy-log-reference';
import {
  MAX_MESSAGE_BYTES,
  RecordEncoder,
  compactPolicyLogMessages,
  policyLogMessages,
} from './log-messages';

const EXPERIMENT = 'projects/acme/locations/global/firewallPolicies/web/experiments/lock';
const POLICY = 'projects/acme/locations/global/firewallPolicies/web';
const allow = Object.freeze({ action: 'allow', rulePriority: 100, implied: false } as const);
const deny = Object.freeze({ action: 'deny', rulePriority: null, implied: true } as const);
const event = (n: number, extra: Partial<TrafficEvent> = {}): TrafficEvent => ({
  id: `evt-${n}`,
  time: '2025-06-01T00:00:00Z',
  direction: 'INGRESS',
  srcIp: '10.0.0.1',
  destIp: '2001:db8::1',
  protocol: 'tcp',
  destPort: 22,
  ...extra,
});

describe('preview-log messages', () => {
  const encoder = new RecordEncoder();
  const keys = recordKeys(EXPERIMENT, 'E1', POLICY, 'L1');

  it('writes records that parse to exactly the contract record, whatever the strings hold', () => {
    const odd = event(1, {
      id: 'évt "1" \\ \u0001',
      targetTags: ['wëb', 'a"b'],
      protocol: 6,
      srcPort: 1234,
    });
    const [message] = encoder.runs(keys, [
      { event: encoder.event(odd, allow), experiment: deny, changed: true },
      { event: encoder.event(event(2), allow), experiment: allow, changed: false },
    ]);
    const batch = JSON.parse(message.toString()) as PreviewLogBatch;
    expect(batch.records).toEqual([
      previewRecord(odd, { name: EXPERIMENT, etag: 'E1', liveEtag: 'L1' }, POLICY, allow, deny),
      previewRecord(
        event(2),
        { name: EXPERIMENT, etag: 'E1', liveEtag: 'L1' },
        POLICY,
        allow,
        allow,
      ),
    ]);
  });

  it('cuts large batches into messages under the limit, every record in one of them, in order', () => {
    const records = Array.from({ length: 5000 }, (_, i) => ({
      event: encoder.event(event(i, { targetTags: ['t'.repeat(50)] }), allow),
      experiment: i % 2 ? allow : deny,
      changed: i % 2 === 0,
    }));
    const messages = encoder.runs(keys, records);
    expect(messages.length).toBeGreaterThan(1);
    expect(messages.every((m) => m.length <= MAX_MESSAGE_BYTES)).toBe(true);
    const ids = messages.flatMap((m) =>
      (JSON.parse(m.toString()) as PreviewLogBatch).records.map((r) => r.trafficEventId),
    );
    expect(ids).toEqual(records.map((_, i) => `evt-${i}`));
  });
});

describe("a policy's preview log", () => {
  const rules = (action: 'allow' | 'deny') =>
    compilePolicy({
      rules: [
        { priority: 10, direction: 'INGRESS', action, match: { srcIpRanges: ['10.0.0.0/8'] } },
      ],
    });
  const target = (id: string, action: 'allow' | 'deny') => ({
    name: `${POLICY}/experiments/${id}`,
    etag: `${id}-E1`,
    logSubject: `preview.v1.logs.acme.global.web.${id}`,
    policy: rules(action),
    liveEtag: 'L1',
    keys: recordKeys(`${POLICY}/experiments/${id}`, `${id}-E1`, POLICY, 'L1'),
  });
  const view: PolicyView = {
    name: POLICY,
    etag: 'L1',
    live: rules('allow'),
    logSubject: 'preview.v1.logs.acme.global.web',
    active: [target('lock', 'deny'), target('same', 'allow')],
  };
  const logOf = (events: TrafficEvent[]): ViewLog => ({
    view,
    events,
    outcomes: events.map((e) => evaluatorOf(view).evaluate(parseConnection(e)!)),
  });

  it('writes one record per event with every experiment verdict, parsing to exactly the contract batch', () => {
    const log = logOf([
      event(1, { id: 'évt "1" \\ \u0001', targetTags: ['wëb'], protocol: 6, srcPort: 1234 }),
      event(2, { srcIp: '192.0.2.7' }),
    ]);
    const [message] = policyLogMessages(log);
    const batch = JSON.parse(message.toString()) as PolicyPreviewLogBatch;
    expect(batch).toEqual(policyLogBatch(view, log.events, log.outcomes));
    expect(batch.experiments.map((e) => e.experiment)).toEqual(view.active.map((t) => t.name));
    expect(batch.events.map((r) => r.experimentResults.map((v) => [v.action, v.changed]))).toEqual([
      [
        ['deny', true],
        ['allow', false],
      ],
      [
        ['deny', false],
        ['deny', false],
      ],
    ]);
    expect(batch.events[0].id.endsWith('.évt "1" \\ \u0001')).toBe(true);
  });

  it('cuts large logs into messages under the limit, every record once, in order', () => {
    const log = logOf(
      Array.from({ length: 5000 }, (_, i) => event(i, { targetTags: ['t'.repeat(80)] })),
    );
    const messages = policyLogMessages(log);
    expect(messages.length).toBeGreaterThan(1);
    expect(messages.every((m) => m.length <= MAX_MESSAGE_BYTES)).toBe(true);
    const ids = messages.flatMap((m) =>
      (JSON.parse(m.toString()) as PolicyPreviewLogBatch).events.map((r) => r.trafficEventId),
    );
    expect(ids).toEqual(log.events.map((e) => e.id));
  });
});

describe("a policy's compact preview log", () => {
  const rules = (action: 'allow' | 'deny') =>
    compilePolicy({
      rules: [
        { priority: 10, direction: 'INGRESS', action, match: { srcIpRanges: ['10.0.0.0/8'] } },
      ],
    });
  const target = (id: string, action: 'allow' | 'deny'): ActiveExperiment => ({
    name: `${POLICY}/experiments/${id}`,
    etag: `${id}-E1`,
    logSubject: `preview.v1.logs.acme.global.web.${id}`,
    policy: rules(action),
    liveEtag: 'L1',
    keys: recordKeys(`${POLICY}/experiments/${id}`, `${id}-E1`, POLICY, 'L1'),
  });
  const viewOf = (active: ActiveExperiment[]): PolicyView => ({
    name: POLICY,
    etag: 'L1',
    live: rules('allow'),
    logSubject: 'preview.v1.logs.acme.global.web',
    active,
  });
  const view = viewOf([target('lock', 'deny'), target('same', 'allow')]);
  const logOf = (events: TrafficEvent[], of = view): ViewLog => ({
    view: of,
    events,
    outcomes: events.map((e) => evaluatorOf(of).evaluate(parseConnection(e)!)),
  });
  const parse = (message: Buffer) => JSON.parse(message.toString()) as CompactPolicyPreviewLog;
  /** Every message expanded and its events concatenated: the log as one PolicyPreviewLogBatch. */
  const expanded = (messages: Buffer[]) => {
    const [first, ...rest] = messages.map((m) => expandCompactPolicyPreviewLog(parse(m)));
    return { ...first, events: [first, ...rest].flatMap((b) => b.events) };
  };

  it('expands to exactly the PolicyPreviewLogBatch of the same events, whatever the strings hold', () => {
    const log = logOf([
      event(1, { id: 'évt "1" \\ \u0001', targetTags: ['wëb', 'a"b'], protocol: 6, srcPort: 1234 }),
      event(2, { srcIp: '192.0.2.7' }),
      event(3, { protocol: 'icmp', destPort: undefined, targetTags: ['t'] }),
      event(4, { direction: 'EGRESS', srcPort: 80, destPort: undefined }),
      event(5, { destPort: undefined }),
      event(6, { srcIp: '10.9.9.9', time: '2025-06-01T00:00:00.125+02:00' }),
    ]);
    const messages = compactPolicyLogMessages(log);
    expect(messages).toHaveLength(1);
    const compact = parse(messages[0]);
    expect(expandCompactPolicyPreviewLog(compact)).toEqual(
      policyLogBatch(view, log.events, log.outcomes),
    );
    // Each distinct outcome once, rows pointing at them; a changed experiment verdict in capitals.
    expect(compact.outcomes).toEqual([
      ['a10', 'D10', 'a10'],
      ['d', 'd', 'd'],
      ['a', 'a', 'a'],
    ]);
    expect(compact.events.map((row) => row[0])).toEqual([0, 1, 0, 2, 0, 0]);
    expect(compact.events[2]).toEqual([
      0,
      'evt-3',
      '2025-06-01T00:00:00Z',
      'I',
      '10.0.0.1',
      '2001:db8::1',
      'icmp',
      null,
      null,
      ['t'],
    ]);
    expect(compact.events[4]).toEqual([
      0,
      'evt-5',
      '2025-06-01T00:00:00Z',
      'I',
      '10.0.0.1',
      '2001:db8::1',
      'tcp',
    ]);
    // The same record ids as the PolicyPreviewLogBatch encoding.
    const json = JSON.parse(policyLogMessages(log)[0].toString()) as PolicyPreviewLogBatch;
    expect(expandCompactPolicyPreviewLog(compact).events.map((e) => e.id)).toEqual(
      json.events.map((e) => e.id),
    );
  });

  it('writes a log of no ACTIVE experiment too (the live verdict alone)', () => {
    const bare = viewOf([]);
    const log = logOf([event(1), event(2, { srcIp: '192.0.2.7' })], bare);
    const [message] = compactPolicyLogMessages(log);
    expect(expandCompactPolicyPreviewLog(parse(message))).toEqual(
      policyLogBatch(bare, log.events, log.outcomes),
    );
    expect(parse(message).outcomes).toEqual([['a10'], ['d']]);
  });

  it('cuts large logs into messages under the limit, each naming the outcomes of its own events, every event once, in order', () => {
    const log = logOf(
      Array.from({ length: 6000 }, (_, i) =>
        event(i, { srcIp: i % 3 ? '10.0.0.1' : '192.0.2.1', targetTags: ['t'.repeat(160)] }),
      ),
    );
    const messages = compactPolicyLogMessages(log);
    expect(messages.length).toBeGreaterThan(1);
    expect(messages.every((m) => m.length <= MAX_MESSAGE_BYTES)).toBe(true);
    for (const m of messages) {
      const { outcomes, events } = parse(m);
      expect([...new Set(events.map((row) => row[0]))].sort()).toEqual(outcomes.map((_, i) => i));
    }
    expect(expanded(messages)).toEqual(policyLogBatch(view, log.events, log.outcomes));
  });

  /**
   * Bytes per event, from the format: a row is `[`, its outcome's index, compactEventRow, and a
   * comma between rows; an outcome's entry (and a comma) is paid by the first event of it in a
   * message; the head and tail once per message.
   */
  const formatBytes = (log: ViewLog) => {
    const seen = new Set<Outcome>();
    let bytes =
      Buffer.byteLength(compactPolicyLogHead(log.view)) + '],"events":['.length + ']}'.length;
    log.events.forEach((e, i) => {
      const outcome = log.outcomes[i];
      if (!seen.has(outcome)) {
        bytes += compactOutcomeJson(outcome).length + (seen.size > 0 ? 1 : 0);
        seen.add(outcome);
      }
      const index = [...seen].indexOf(outcome);
      bytes += 1 + String(index).length + Buffer.byteLength(compactEventRow(e)) + (i > 0 ? 1 : 0);
    });
    return bytes;
  };

  /**
   * The evaluator bench's traffic at its widest: its longest ids, addresses and ports, a tag on
   * every event, priorities of five digits (its rules are 1000 to 10990), and every event of a
   * 1,000-event message of an outcome of its own in which every experiment decides otherwise.
   */
  const benchLog = (k: number): ViewLog => {
    const targets = Array.from({ length: k }, (_, i) => target(`tenth-${i}`, 'deny'));
    const of = {
      ...viewOf(targets),
      name: 'projects/bench/locations/global/firewallPolicies/edge',
      etag: 'W/"1765084800000-42"',
    };
    const verdict = (action: 'allow' | 'deny', p: number): PreviewVerdict =>
      Object.freeze({ action, rulePriority: 10_000 + (p % 991) * 10 - 10, implied: false });
    const events = Array.from({ length: 1000 }, (_, i) =>
      event(i, {
        id: `v2alpha-k10-${199_000 + i}`,
        time: new Date(Date.UTC(2025, 5, 1, 23, 59, 59, 999)).toISOString(),
        srcIp: '172.31.255.255',
        destIp: '192.168.255.255',
        srcPort: 61_023,
        destPort: 9100,
        targetTags: ['tier-3'],
      }),
    );
    const outcomes = events.map(
      (_, i) =>
        new Outcome(
          i,
          verdict('allow', i),
          targets.map((_, t) => verdict('deny', i + t + 1)),
        ),
    );
    return { view: of, events, outcomes };
  };

  it.each([
    [1, 150],
    [10, 250],
  ])(
    "costs what the format says, at most %s ACTIVE → %s bytes per event on the bench's widest traffic",
    (k, bound) => {
      const log = benchLog(k);
      const [message, ...more] = compactPolicyLogMessages(log);
      expect(more).toEqual([]);
      expect(message.length).toBe(formatBytes(log));
      expect(message.length / log.events.length).toBeLessThanOrEqual(bound);
      expect(expandCompactPolicyPreviewLog(parse(message))).toEqual(
        policyLogBatch(log.view, log.events, log.outcomes),
      );
      // The deprecated PolicyPreviewLogBatch encoding of the same log, for scale.
      expect(policyLogMessages(log)[0].length / log.events.length).toBeGreaterThan(2 * bound);
    },
  );
});
