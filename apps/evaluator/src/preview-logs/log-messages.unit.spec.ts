import type { PolicyPreviewLogBatch, PreviewLogBatch, TrafficEvent } from '@rollout/contracts';
import { compilePolicy, parseConnection } from '@rollout/domain/firewall';
import {
  PolicyView,
  ViewLog,
  evaluatorOf,
  previewRecord,
  recordKeys,
} from '@rollout/domain/preview';
import { policyLogBatch } from '../../test/policy-log-reference';
import { MAX_MESSAGE_BYTES, RecordEncoder, policyLogMessages } from './log-messages';

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
