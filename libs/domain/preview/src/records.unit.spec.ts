import type { PreviewFlow, TrafficEvent } from '@rollout/contracts';
import {
  eventJson,
  flowSampleRecord,
  previewRecord,
  previewRecordId,
  recordJson,
  recordKeys,
} from './records';

const EXPERIMENT = 'projects/acme/locations/global/firewallPolicies/web/experiments/lock';
const POLICY = 'projects/acme/locations/global/firewallPolicies/web';
const event: TrafficEvent = {
  id: 'evt "quoted" \\ ünïcode',
  time: '2025-06-01T00:00:00.123456Z',
  direction: 'INGRESS',
  srcIp: '2001:db8::1',
  destIp: '10.0.0.1',
  protocol: 6,
  destPort: 22,
  targetTags: ['web'],
};
const allow = { action: 'allow', rulePriority: 100, implied: false } as const;
const deny = { action: 'deny', rulePriority: null, implied: true } as const;

describe('preview log records', () => {
  it('writes JSON that parses to exactly the record, whatever the event id holds', () => {
    const keys = recordKeys(EXPERIMENT, 'E"1', POLICY, 'L1');
    const json = recordJson(keys, eventJson(event, allow), deny, true);
    expect(JSON.parse(json)).toEqual(
      previewRecord(event, { name: EXPERIMENT, etag: 'E"1', liveEtag: 'L1' }, POLICY, allow, deny),
    );
    expect(Object.keys(JSON.parse(json))).toEqual([
      'logPrefix',
      'id',
      'experiment',
      'firewallPolicy',
      'experimentEtag',
      'livePolicyEtag',
      'trafficEventId',
      'eventTime',
      'connection',
      'liveResult',
      'experimentResult',
      'changed',
    ]);
  });

  it('gives one id per (event, experiment, experiment etag), the same whatever the live policy version', () => {
    const id = previewRecordId('e1', EXPERIMENT, 'E1');
    expect(previewRecordId('e1', EXPERIMENT, 'E1')).toBe(id);
    expect(
      new Set([
        id,
        previewRecordId('e2', EXPERIMENT, 'E1'),
        previewRecordId('e1', EXPERIMENT, 'E2'),
        previewRecordId('e1', `${EXPERIMENT}x`, 'E1'),
      ]).size,
    ).toBe(4);
    const a = JSON.parse(
      recordJson(
        recordKeys(EXPERIMENT, 'E1', POLICY, 'L1'),
        eventJson({ ...event, id: 'e1' }, allow),
        allow,
        false,
      ),
    );
    const b = JSON.parse(
      recordJson(
        recordKeys(EXPERIMENT, 'E1', POLICY, 'L2'),
        eventJson({ ...event, id: 'e1' }, deny),
        allow,
        true,
      ),
    );
    expect(a.id).toBe(id);
    expect(b.id).toBe(id);
  });
});

describe('flowSampleRecord', () => {
  it("rebuilds a changed flow's sample as exactly the record logged for its event", () => {
    const { targetTags: _tags, ...untagged } = { ...event, srcPort: 40001 };
    const flow: PreviewFlow = {
      experimentEtag: 'E1',
      livePolicyEtag: 'L1',
      direction: 'INGRESS',
      srcIp: untagged.srcIp,
      destIp: untagged.destIp,
      protocol: untagged.protocol as PreviewFlow['protocol'],
      destPort: 22,
      transition: 'ALLOW_TO_DENY',
      liveResult: allow,
      experimentResult: deny,
      count: 1,
      firstEventTime: untagged.time,
      lastEventTime: untagged.time,
      samples: [{ trafficEventId: untagged.id, eventTime: untagged.time, srcPort: 40001 }],
    };
    const logged = previewRecord(
      untagged,
      { name: EXPERIMENT, etag: 'E1', liveEtag: 'L1' },
      POLICY,
      allow,
      deny,
    );
    expect(flowSampleRecord(EXPERIMENT, POLICY, flow, flow.samples[0])).toEqual(logged);
    expect(
      Object.keys(flowSampleRecord(EXPERIMENT, POLICY, flow, flow.samples[0]).connection),
    ).toEqual(Object.keys(logged.connection));
  });
});
