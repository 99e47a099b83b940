import { CompactPolicyPreviewLog, PreviewLogBatch, PreviewLogRecord } from '@rollout/contracts';
import { PolicyPreviewLog, VerdictsByExperiment, logShape } from './preview-log-reader';

const policy = 'projects/bench/locations/global/firewallPolicies/edge';
const verdict = { action: 'allow', rulePriority: 1000, implied: false } as const;
const connection = {
  direction: 'INGRESS',
  srcIp: '10.0.0.1',
  destIp: '192.168.0.1',
  protocol: 'tcp',
  destPort: 22,
} as const;

const perPolicy: PolicyPreviewLog = {
  firewallPolicy: policy,
  livePolicyEtag: 'live-2',
  experiments: [
    { experiment: `${policy}/experiments/flip`, experimentEtag: 'flip-1' },
    { experiment: `${policy}/experiments/lockdown`, experimentEtag: 'lockdown-3' },
  ],
  events: ['e1', 'e2'].map((trafficEventId) => ({
    id: `${trafficEventId}-log`,
    trafficEventId,
    eventTime: '2026-11-28T00:00:00Z',
    connection,
    liveResult: verdict,
    experimentResults: [
      { ...verdict, changed: false },
      { ...verdict, action: 'deny', changed: true },
    ],
  })),
} as PolicyPreviewLog;

const compact: CompactPolicyPreviewLog = {
  logPrefix: 'FirewallPolicyPreviewLog',
  firewallPolicy: policy,
  livePolicyEtag: 'live-3',
  experiments: perPolicy.experiments,
  idPrefix: 'Qm9yZWFs',
  outcomes: [['a1000', 'a1000', 'D1000']],
  events: ['e1', 'e2'].map((id) => [
    0,
    id,
    '2026-11-28T00:00:00Z',
    'I',
    '10.0.0.1',
    '192.168.0.1',
    'tcp',
    null,
    22,
  ]),
};

const record = (trafficEventId: string, experiment: string): PreviewLogRecord => ({
  logPrefix: 'FirewallPolicyPreviewLog',
  id: `${trafficEventId}-${experiment}`,
  experiment: `${policy}/experiments/${experiment}`,
  firewallPolicy: policy,
  experimentEtag: `${experiment}-1`,
  livePolicyEtag: 'live-1',
  trafficEventId,
  eventTime: '2026-11-28T00:00:00Z',
  connection,
  liveResult: verdict,
  experimentResult: verdict,
  changed: false,
});
const perExperiment = (experiment: string): PreviewLogBatch => ({
  records: [record('e1', experiment), record('e2', experiment)],
});

describe('the bench’s PREVIEW_LOGS reader', () => {
  it('tells the shapes apart by the tokens after preview.v1.logs, namespaced or not', () => {
    expect(logShape('bench-x.preview.v1.logs.bench.global.edge._policy.compact')).toBe('compact');
    expect(logShape('preview.v1.logs.bench.global.edge._policy.other')).toBeUndefined();
    expect(logShape('bench-x.preview.v1.logs.bench.global.edge')).toBe('policy');
    expect(logShape('preview.v1.logs.bench.global.edge.flip')).toBe('experiment');
    expect(logShape('bench-x.traffic.v1.bench.global.edge')).toBeUndefined();
  });

  it('maps the per-policy log to one verdict per event and experiment, with the message’s etags', () => {
    const reader = new VerdictsByExperiment();
    reader.add('ns.preview.v1.logs.bench.global.edge', () => perPolicy);
    const byExperiment = reader.result();
    expect([...byExperiment.keys()]).toEqual(['flip', 'lockdown']);
    expect(byExperiment.get('lockdown')).toEqual([
      {
        experiment: 'lockdown',
        experimentEtag: 'lockdown-3',
        livePolicyEtag: 'live-2',
        trafficEventId: 'e1',
      },
      {
        experiment: 'lockdown',
        experimentEtag: 'lockdown-3',
        livePolicyEtag: 'live-2',
        trafficEventId: 'e2',
      },
    ]);
  });

  it('maps the per-experiment records by the experiment of their subject', () => {
    const reader = new VerdictsByExperiment();
    reader.add('ns.preview.v1.logs.bench.global.edge.flip', () => perExperiment('flip'));
    expect(
      reader
        .result()
        .get('flip')
        ?.map((v) => [v.trafficEventId, v.experimentEtag]),
    ).toEqual([
      ['e1', 'flip-1'],
      ['e2', 'flip-1'],
    ]);
  });

  it('reads only the per-policy log when an evaluator publishes both shapes', () => {
    const reader = new VerdictsByExperiment();
    reader.add('ns.preview.v1.logs.bench.global.edge.flip', () => perExperiment('flip'));
    reader.add('ns.preview.v1.logs.bench.global.edge', () => perPolicy);
    expect(
      reader
        .result()
        .get('flip')
        ?.map((v) => v.livePolicyEtag),
    ).toEqual(['live-2', 'live-2']);
  });

  it('maps the compact log like the per-policy one, and prefers it to every other shape', () => {
    const reader = new VerdictsByExperiment();
    reader.add('ns.preview.v1.logs.bench.global.edge.flip', () => perExperiment('flip'));
    reader.add('ns.preview.v1.logs.bench.global.edge', () => perPolicy);
    reader.add('ns.preview.v1.logs.bench.global.edge._policy.compact', () => compact);
    expect(
      reader
        .result()
        .get('lockdown')
        ?.map((v) => [v.trafficEventId, v.experimentEtag, v.livePolicyEtag]),
    ).toEqual([
      ['e1', 'lockdown-3', 'live-3'],
      ['e2', 'lockdown-3', 'live-3'],
    ]);
  });
});
