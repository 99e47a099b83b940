import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CompactPolicyPreviewLog,
  compactLogSubjectOf,
  compactPolicyPreviewLogSubject,
  expandCompactPolicyPreviewLog,
  parsePreviewVerdictToken,
  policyPreviewLogSubject,
  previewVerdictToken,
} from './index';

const golden = JSON.parse(
  readFileSync(
    join(__dirname, '../../../golden/preview.v1/1.10.0/CompactPolicyPreviewLog.json'),
    'utf8',
  ),
) as CompactPolicyPreviewLog;

describe('preview verdict tokens', () => {
  it.each([
    [{ action: 'allow', rulePriority: 100, implied: false }, false, 'a100'],
    [{ action: 'deny', rulePriority: 0, implied: false }, false, 'd0'],
    [{ action: 'deny', rulePriority: null, implied: true }, false, 'd'],
    [{ action: 'allow', rulePriority: null, implied: true }, true, 'A'],
    [{ action: 'deny', rulePriority: 65535, implied: false }, true, 'D65535'],
  ] as const)('%j (changed %s) is %s, and back', (verdict, changed, token) => {
    expect(previewVerdictToken(verdict, changed)).toBe(token);
    expect(parsePreviewVerdictToken(token)).toEqual({ ...verdict, changed });
  });

  it.each(['', 'x1', 'a01', 'a-1', 'allow', 'a1 '])('refuses %j', (token) => {
    expect(() => parsePreviewVerdictToken(token)).toThrow('not a preview verdict token');
  });
});

describe('a compact policy log', () => {
  it('is on a subject of five tokens after preview.v1.logs, beside the policy log', () => {
    const subject = compactPolicyPreviewLogSubject('acme', 'global', 'web');
    expect(subject).toBe('preview.v1.logs.acme.global.web._policy.compact');
    expect(compactLogSubjectOf(policyPreviewLogSubject('acme', 'global', 'web'))).toBe(subject);
  });

  it('expands to the PolicyPreviewLogBatch it stands for (the golden message)', () => {
    const batch = expandCompactPolicyPreviewLog(golden);
    expect(batch.experiments).toEqual(golden.experiments);
    expect(batch.events[0]).toEqual({
      id: 'Qm9yZWFsaXMtcHJldmlldy1sb2c.evt-1',
      trafficEventId: 'evt-1',
      eventTime: '2026-11-25T09:41:07Z',
      connection: {
        direction: 'INGRESS',
        srcIp: '198.51.100.7',
        destIp: '10.0.0.5',
        protocol: 'tcp',
        srcPort: 51512,
        destPort: 22,
      },
      liveResult: { action: 'allow', rulePriority: 100, implied: false },
      experimentResults: [
        { action: 'deny', rulePriority: 10, implied: false, changed: true },
        { action: 'allow', rulePriority: 100, implied: false, changed: false },
      ],
    });
    expect(batch.events[3].connection).toEqual({
      direction: 'INGRESS',
      srcIp: '2001:db8::7',
      destIp: '2001:db8::1',
      protocol: 'icmp',
      targetTags: ['web'],
    });
    expect(batch.events[3].experimentResults[1]).toEqual({
      action: 'allow',
      rulePriority: 200,
      implied: false,
      changed: true,
    });
    expect(batch.events.map((e) => e.trafficEventId)).toEqual(['evt-1', 'evt-2', 'evt-3', 'evt-4']);
  });

  it('refuses a row without its outcome, and an outcome of another number of verdicts', () => {
    expect(() =>
      expandCompactPolicyPreviewLog({
        ...golden,
        events: [[2, ...golden.events[0].slice(1)]] as never,
      }),
    ).toThrow('has no outcome 2');
    expect(() => expandCompactPolicyPreviewLog({ ...golden, outcomes: [['a100']] })).toThrow(
      'outcome 0 has 1 verdicts for 2 experiments',
    );
  });
});
