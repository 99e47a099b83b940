import type {
  ExperimentEvent,
  FirewallPolicy,
  FirewallPolicyExperiment,
  FirewallRule,
  PolicyEvent,
} from '@rollout/contracts';
import { compilePolicy, parseConnection } from '@rollout/domain/firewall';
import { PreviewState } from './state';

const POLICY = 'projects/acme/locations/global/firewallPolicies/web';
const KEY = 'acme.global.web';
const T = '2025-01-01T00:00:00Z';
const denySsh: FirewallRule = {
  priority: 10,
  direction: 'INGRESS',
  action: 'deny',
  match: { srcIpRanges: ['0.0.0.0/0'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] },
};
const allowAll: FirewallRule = {
  priority: 100,
  direction: 'INGRESS',
  action: 'allow',
  match: { srcIpRanges: ['0.0.0.0/0'] },
};

const policy = (
  version: number,
  rules: FirewallRule[],
  type: PolicyEvent['type'] = 'PolicyUpdated',
): PolicyEvent => ({
  id: `p${version}`,
  type,
  subject: POLICY,
  version,
  time: T,
  actor: 'test',
  state:
    type === 'PolicyDeleted'
      ? undefined
      : ({
          name: POLICY,
          rules,
          etag: `L${version}`,
          createTime: T,
          updateTime: T,
        } as FirewallPolicy),
});

const experiment = (
  id: string,
  version: number,
  rules: FirewallRule[],
  preview?: 'ACTIVE' | 'SUSPENDED',
  type: ExperimentEvent['type'] = 'ExperimentUpdated',
): ExperimentEvent => ({
  id: `${id}${version}`,
  type,
  subject: `${POLICY}/experiments/${id}`,
  version,
  time: T,
  actor: 'test',
  state:
    type === 'ExperimentDeleted' || type === 'ExperimentCommitted'
      ? undefined
      : ({
          name: `${POLICY}/experiments/${id}`,
          firewallPolicy: { name: POLICY, rules },
          ...(preview
            ? { previewMetadata: { state: preview, logPrefix: 'FirewallPolicyPreviewLog' } }
            : {}),
          annotations: {},
          etag: `${id.toUpperCase()}${version}`,
          createTime: T,
          updateTime: T,
        } as FirewallPolicyExperiment),
});

const ssh = parseConnection({
  direction: 'INGRESS',
  srcIp: '198.51.100.7',
  destIp: '10.0.0.5',
  protocol: 'tcp',
  destPort: 22,
})!;

describe('PreviewState', () => {
  it('knows no policy before its first event, and evaluates the live policy once it has it', () => {
    const state = new PreviewState();
    expect(state.viewForTraffic(KEY)).toBeUndefined();
    state.apply(policy(1, [denySsh], 'PolicyCreated'));
    const view = state.viewForTraffic(KEY)!;
    expect(view).toMatchObject({ name: POLICY, etag: 'L1', active: [] });
    expect(view.live.evaluateParsed(ssh)).toEqual({
      action: 'deny',
      rulePriority: 10,
      implied: false,
    });
  });

  it('previews only ACTIVE experiments: never-started and SUSPENDED ones produce nothing', () => {
    const state = new PreviewState();
    state.apply(policy(1, [denySsh]));
    state.apply(experiment('draft', 1, [allowAll]));
    state.apply(experiment('paused', 2, [allowAll], 'SUSPENDED'));
    state.apply(experiment('open', 2, [allowAll], 'ACTIVE'));
    const view = state.viewForTraffic(KEY)!;
    expect(view.active.map((e) => [e.name.split('/').at(-1), e.etag, e.logSubject])).toEqual([
      ['open', 'OPEN2', 'preview.v1.logs.acme.global.web.open'],
    ]);
    expect(view.active[0].policy.evaluateParsed(ssh)).toEqual({
      action: 'allow',
      rulePriority: 100,
      implied: false,
    });
    expect(state.counts).toEqual({ policies: 1, experiments: 3, active: 1 });
  });

  it('previews deleting the policy with a no-op experiment: the implied rules decide', () => {
    const state = new PreviewState();
    state.apply(policy(1, [allowAll]));
    state.apply(experiment('noop', 2, [], 'ACTIVE'));
    expect(state.viewForTraffic(KEY)!.active[0].policy.evaluateParsed(ssh)).toEqual({
      action: 'deny',
      rulePriority: null,
      implied: true,
    });
  });

  it('applies a delete marker at its version: an older one changes nothing, a recreation after it is taken', () => {
    const state = new PreviewState();
    state.apply(policy(3, [denySsh]));
    state.apply(experiment('open', 2, [allowAll], 'ACTIVE'));
    expect(state.applyDeletion('policy', POLICY, 2).applied).toBe(false);
    expect(state.applyDeletion('experiment', `${POLICY}/experiments/open`, 3).applied).toBe(true);
    expect(state.viewForTraffic(KEY)!.active).toEqual([]);
    expect(state.applyDeletion('policy', POLICY, 4).applied).toBe(true);
    expect(state.viewForTraffic(KEY)).toBeUndefined();
    state.apply(policy(5, [allowAll], 'PolicyCreated'));
    expect(state.viewForTraffic(KEY)!.etag).toBe('L5');
  });

  it('applies a delete marker without a version (a key deleted by hand) whatever version it holds, and takes the next event', () => {
    const state = new PreviewState();
    state.apply(policy(7, [denySsh]));
    expect(state.applyDeletion('policy', POLICY, Number('not a version')).applied).toBe(true);
    expect(state.viewForTraffic(KEY)).toBeUndefined();
    expect(state.apply(policy(7, [denySsh])).applied).toBe(false);
    expect(state.apply(policy(8, [denySsh])).applied).toBe(true);
    expect(state.viewForTraffic(KEY)!.etag).toBe('L8');
  });

  it('accepts the experiments of a policy before the policy itself (snapshot order is by subject)', () => {
    const state = new PreviewState();
    state.apply(experiment('early', 3, [allowAll], 'ACTIVE'));
    expect(state.viewForTraffic(KEY)).toBeUndefined();
    state.apply(policy(4, [denySsh]));
    expect(state.viewForTraffic(KEY)!.active.map((e) => e.etag)).toEqual(['EARLY3']);
  });

  it('ignores an event at or below the held version, so replays and redeliveries change nothing', () => {
    const state = new PreviewState();
    expect(state.apply(policy(2, [denySsh])).applied).toBe(true);
    expect(state.apply(policy(1, [allowAll])).applied).toBe(false);
    expect(state.apply(policy(2, [allowAll])).applied).toBe(false);
    expect(state.viewForTraffic(KEY)!.etag).toBe('L2');
    state.apply(experiment('x', 2, [allowAll], 'ACTIVE'));
    state.apply(experiment('x', 1, [allowAll]));
    expect(state.viewForTraffic(KEY)!.active).toHaveLength(1);
  });

  it('follows stopPreview, update, commit and delete', () => {
    const state = new PreviewState();
    state.apply(policy(1, [denySsh]));
    state.apply(experiment('x', 2, [allowAll], 'ACTIVE'));
    state.apply(experiment('x', 3, [allowAll], 'SUSPENDED'));
    expect(state.viewForTraffic(KEY)!.active).toEqual([]);
    state.apply(experiment('x', 4, [allowAll], 'ACTIVE'));
    expect(state.viewForTraffic(KEY)!.active[0].etag).toBe('X4');
    // Commit: the experiment goes, the live policy takes its rules.
    state.apply(experiment('x', 5, [], undefined, 'ExperimentCommitted'));
    state.apply(policy(2, [allowAll]));
    const view = state.viewForTraffic(KEY)!;
    expect(view.active).toEqual([]);
    expect(view.live.evaluateParsed(ssh).action).toBe('allow');
    expect(state.hasExperiment(`${POLICY}/experiments/x`)).toBe(false);
    state.apply(policy(3, [], 'PolicyDeleted'));
    expect(state.viewForTraffic(KEY)).toBeUndefined();
  });

  it('keeps an experiment out of the preview when its policy does not compile, and says why', () => {
    const state = new PreviewState((p) => {
      if (p.rules?.some((r) => r.priority === 666)) throw new Error('boom');
      return compilePolicy(p);
    });
    state.apply(policy(1, []));
    const result = state.apply(experiment('bad', 2, [{ ...allowAll, priority: 666 }], 'ACTIVE'));
    expect(result.problems).toEqual([
      `experiment ${POLICY}/experiments/bad does not compile: boom`,
    ]);
    expect(state.viewForTraffic(KEY)!.active).toEqual([]);
  });

  it('remembers the version it saw ACTIVE until the experiment changes, and lists those that may stop by themselves', () => {
    const state = new PreviewState();
    const name = `${POLICY}/experiments/gated`;
    state.apply(policy(1, [denySsh], 'PolicyCreated'));
    state.apply(experiment('gated', 1, [allowAll], undefined, 'ExperimentCreated'));
    expect(state.experimentOf(name)).toMatchObject({
      lastEvent: 'ExperimentCreated',
      liveEtag: 'L1',
      previewedEtag: undefined,
    });
    state.apply({
      ...experiment('gated', 2, [allowAll], 'ACTIVE', 'PreviewStarted'),
      state: {
        ...experiment('gated', 2, [allowAll], 'ACTIVE').state!,
        stopAfter: { evaluatedEvents: 5 },
      },
    });
    expect(state.autoStopping()).toEqual([name]);
    state.apply(experiment('gated', 3, [allowAll], 'SUSPENDED', 'PreviewStopped'));
    expect(state.experimentOf(name)).toMatchObject({
      lastEvent: 'PreviewStopped',
      previewedEtag: 'GATED2',
    });
    expect(state.autoStopping()).toEqual([]);
    state.apply(experiment('gated', 4, [denySsh], 'SUSPENDED'));
    expect(state.experimentOf(name)?.previewedEtag).toBeUndefined();
    state.apply(experiment('gated', 5, [], undefined, 'ExperimentDeleted'));
    expect(state.experimentOf(name)).toBeUndefined();
  });
});
