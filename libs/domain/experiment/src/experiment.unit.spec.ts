import { StatusError } from '@rollout/contracts';
import type { Clock } from '@rollout/contracts';
import { decideCommit } from './decide-commit';
import {
  decideCreateExperiment,
  decideStartPreview,
  decideStopPreview,
  decideUpdateExperiment,
} from './decide-experiment';
import { decideUpdatePolicy } from './decide-policy';
import type { ExperimentDomainEvent, PolicyDomainEvent } from './events';
import { etagOf, evolveExperiment, evolvePolicy, initialExperiment, initialPolicy } from './evolve';
import { experimentView } from './views';

const POLICY = 'projects/p/locations/global/firewallPolicies/web';
const EXPERIMENT = `${POLICY}/experiments/tighten`;
const T0 = '2026-11-22T10:00:00.000Z';
const clockAt = (iso: string): Clock => ({ now: () => new Date(iso) });
const rule = {
  priority: 10,
  direction: 'INGRESS' as const,
  action: 'deny' as const,
  match: { srcIpRanges: ['0.0.0.0/0'] },
};

const givenPolicy = (...events: PolicyDomainEvent[]) =>
  events.reduce(evolvePolicy, initialPolicy(POLICY));
const givenExperiment = (...events: ExperimentDomainEvent[]) =>
  events.reduce(evolveExperiment, initialExperiment(EXPERIMENT));
const created: PolicyDomainEvent = {
  type: 'PolicyCreated',
  data: { content: { rules: [] }, time: T0 },
};
const experimentCreated: ExperimentDomainEvent = {
  type: 'ExperimentCreated',
  data: { policyName: POLICY, content: { rules: [rule] }, annotations: {}, time: T0 },
};
const started: ExperimentDomainEvent = { type: 'PreviewStarted', data: { time: T0 } };

function failure(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (error) {
    return error as StatusError;
  }
  throw new Error('expected a StatusError');
}

describe('creating an experiment', () => {
  it('given a live policy, holds the new version with no preview yet', () => {
    const events = decideCreateExperiment(
      initialExperiment(EXPERIMENT),
      givenPolicy(created),
      0,
      { firewallPolicy: { rules: [rule] } },
      clockAt(T0),
    );
    const view = experimentView(events.reduce(evolveExperiment, initialExperiment(EXPERIMENT)));
    expect(view).toEqual({
      name: EXPERIMENT,
      firewallPolicy: { name: POLICY, rules: [rule] },
      annotations: {},
      etag: etagOf(EXPERIMENT, 1),
      createTime: T0,
      updateTime: T0,
    });
  });

  it('given no live policy, is NOT_FOUND', () => {
    expect(
      failure(() =>
        decideCreateExperiment(
          initialExperiment(EXPERIMENT),
          initialPolicy(POLICY),
          0,
          {},
          clockAt(T0),
        ),
      ).status,
    ).toBe('NOT_FOUND');
  });

  it('given 10 experiments already, the 11th is RESOURCE_EXHAUSTED', () => {
    expect(
      failure(() =>
        decideCreateExperiment(
          initialExperiment(EXPERIMENT),
          givenPolicy(created),
          10,
          {},
          clockAt(T0),
        ),
      ).status,
    ).toBe('RESOURCE_EXHAUSTED');
  });

  it('refuses a policy name other than the live one', () => {
    const error = failure(() =>
      decideCreateExperiment(
        initialExperiment(EXPERIMENT),
        givenPolicy(created),
        0,
        { firewallPolicy: { name: `${POLICY}x` } },
        clockAt(T0),
      ),
    );
    expect(error.toStatus()).toMatchObject({
      status: 'INVALID_ARGUMENT',
      details: [{ fieldViolations: [{ field: 'experiment.firewallPolicy.name' }] }],
    });
  });

  it('refuses more than 64 annotations', () => {
    const annotations = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v']));
    expect(
      failure(() =>
        decideCreateExperiment(
          initialExperiment(EXPERIMENT),
          givenPolicy(created),
          0,
          { annotations },
          clockAt(T0),
        ),
      ).status,
    ).toBe('INVALID_ARGUMENT');
  });
});

describe('previewing', () => {
  it('startPreview makes it ACTIVE with the log prefix and a start time, each time it turns ACTIVE', () => {
    const first = givenExperiment(
      experimentCreated,
      ...decideStartPreview(givenExperiment(experimentCreated), clockAt('2026-11-22T11:00:00Z')),
    );
    expect(first.preview).toEqual({
      state: 'ACTIVE',
      logPrefix: 'FirewallPolicyPreviewLog',
      startTime: '2026-11-22T11:00:00.000Z',
    });
    const stopped = decideStopPreview(first, clockAt('2026-11-22T12:00:00Z')).reduce(
      evolveExperiment,
      first,
    );
    expect(stopped.preview).toMatchObject({
      state: 'SUSPENDED',
      stopTime: '2026-11-22T12:00:00.000Z',
    });
    const again = decideStartPreview(stopped, clockAt('2026-11-22T13:00:00Z')).reduce(
      evolveExperiment,
      stopped,
    );
    expect(again.preview).toMatchObject({ state: 'ACTIVE', startTime: '2026-11-22T13:00:00.000Z' });
  });

  it('updating an ACTIVE experiment suspends it, so versions can be told apart', () => {
    const active = givenExperiment(experimentCreated, started);
    const events = decideUpdateExperiment(
      active,
      { firewallPolicy: { rules: [] } },
      'firewallPolicy.rules',
      clockAt('2026-11-22T12:30:00Z'),
    );
    const after = events.reduce(evolveExperiment, active);
    expect(after.preview).toMatchObject({
      state: 'SUSPENDED',
      stopTime: '2026-11-22T12:30:00.000Z',
    });
    expect(after.content.rules).toEqual([]);
  });

  it('refuses to change the policy name of an experiment', () => {
    const error = failure(() =>
      decideUpdateExperiment(
        givenExperiment(experimentCreated),
        { firewallPolicy: { name: 'projects/p/locations/global/firewallPolicies/other' } },
        'firewallPolicy.name',
        clockAt(T0),
      ),
    );
    expect(error.status).toBe('INVALID_ARGUMENT');
  });
});

describe('committing', () => {
  const policy = givenPolicy(created);
  const experiment = givenExperiment(experimentCreated, started);

  it('copies the experiment policy into the live policy and ends the experiment', () => {
    const decision = decideCommit(
      experiment,
      policy,
      { etag: etagOf(EXPERIMENT, 2), livePolicyEtag: etagOf(POLICY, 1) },
      clockAt(T0),
    );
    const live = decision.policy.reduce(evolvePolicy, policy);
    expect(live.content.rules).toEqual([rule]);
    expect(live.name).toBe(POLICY);
    expect(etagOf(POLICY, live.version)).not.toBe(etagOf(POLICY, 1));
    expect(decision.experiment.reduce(evolveExperiment, experiment).exists).toBe(false);
  });

  it.each([
    ['no etag', {}, 'INVALID_ARGUMENT', /^etag is required/],
    ['a stale etag', { etag: etagOf(EXPERIMENT, 1) }, 'ABORTED', /^etag does not match/],
    [
      'a stale livePolicyEtag',
      { etag: etagOf(EXPERIMENT, 2), livePolicyEtag: 'stale' },
      'ABORTED',
      /^livePolicyEtag does not match/,
    ],
  ])('with %s changes nothing and says which etag', (_, request, status, message) => {
    const error = failure(() => decideCommit(experiment, policy, request, clockAt(T0)));
    expect(error.status).toBe(status);
    expect(error.message).toMatch(message);
  });

  it('twice is NOT_FOUND the second time', () => {
    const gone = givenExperiment(experimentCreated, started, {
      type: 'ExperimentCommitted',
      data: { time: T0 },
    });
    expect(
      failure(() => decideCommit(gone, policy, { etag: etagOf(EXPERIMENT, 3) }, clockAt(T0)))
        .status,
    ).toBe('NOT_FOUND');
  });
});

describe('updating a live policy', () => {
  it('needs the current etag when one is given', () => {
    const policy = givenPolicy(created);
    expect(
      failure(() => decideUpdatePolicy(policy, { etag: 'old', rules: [] }, 'rules', clockAt(T0)))
        .status,
    ).toBe('ABORTED');
    expect(
      decideUpdatePolicy(policy, { etag: etagOf(POLICY, 1), rules: [rule] }, 'rules', clockAt(T0)),
    ).toHaveLength(1);
  });
});
