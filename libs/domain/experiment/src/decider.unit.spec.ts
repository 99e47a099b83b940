import { StatusError } from '@rollout/contracts';
import {
  CommitCommand,
  ExperimentCommand,
  PolicyCommand,
  decideCommitExperiment,
  experimentDecider,
  policyDecider,
} from './commands';
import type { Clock } from '@rollout/contracts';
import type { ExperimentDomainEvent, PolicyDomainEvent } from './events';
import { etagOf } from './evolve';
import { experimentView, policyView } from './views';

const POLICY = 'projects/p/locations/global/firewallPolicies/web';
const EXPERIMENT = `${POLICY}/experiments/tighten`;
const T0 = '2026-11-22T10:00:00.000Z';
const T1 = '2026-11-22T11:00:00.000Z';
const T2 = '2026-11-22T12:00:00.000Z';
const at = (iso: string): Clock => ({ now: () => new Date(iso) });
const allowWeb = {
  priority: 10,
  direction: 'INGRESS' as const,
  action: 'allow' as const,
  match: { layer4Configs: [{ ipProtocol: 'tcp', ports: ['443'] }] },
};
const denyAll = {
  priority: 20,
  direction: 'INGRESS' as const,
  action: 'deny' as const,
  match: { srcIpRanges: ['0.0.0.0/0', '::/0'] },
};

const policyCreated: PolicyDomainEvent = {
  type: 'PolicyCreated',
  data: { content: { rules: [allowWeb] }, time: T0 },
};
const experimentCreated: ExperimentDomainEvent = {
  type: 'ExperimentCreated',
  data: { policyName: POLICY, content: { rules: [allowWeb, denyAll] }, annotations: {}, time: T0 },
};
const previewStarted: ExperimentDomainEvent = { type: 'PreviewStarted', data: { time: T0 } };
const previewStopped: ExperimentDomainEvent = { type: 'PreviewStopped', data: { time: T1 } };

const statusOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    if (error instanceof StatusError) return error.status;
    throw error;
  }
  throw new Error('expected a StatusError');
};

/** given(events).when(command, clock).then(events) / .thenFails(status), for each aggregate. */
const givenPolicy = (...history: PolicyDomainEvent[]) => {
  const state = history.reduce(policyDecider.evolve, policyDecider.initialState(POLICY));
  return {
    state,
    when: (command: PolicyCommand, clock = at(T1)) => ({
      then: (expected: PolicyDomainEvent[]) =>
        expect(policyDecider.decide(command, state, clock)).toEqual(expected),
      thenFails: (status: string) =>
        expect(statusOf(() => policyDecider.decide(command, state, clock))).toBe(status),
    }),
  };
};
const givenExperiment = (...history: ExperimentDomainEvent[]) => {
  const state = history.reduce(
    experimentDecider.evolve,
    experimentDecider.initialState(EXPERIMENT),
  );
  return {
    state,
    when: (command: ExperimentCommand, clock = at(T1)) => ({
      then: (expected: ExperimentDomainEvent[]) =>
        expect(experimentDecider.decide(command, state, clock)).toEqual(expected),
      thenFails: (status: string) =>
        expect(statusOf(() => experimentDecider.decide(command, state, clock))).toBe(status),
    }),
  };
};

describe('LiveFirewallPolicy', () => {
  it('given nothing, when created, then PolicyCreated with the validated rules', () => {
    givenPolicy()
      .when(
        { type: 'CreatePolicy', data: { firewallPolicy: { rules: [allowWeb], etag: 'ignored' } } },
        at(T0),
      )
      .then([policyCreated]);
  });

  it('given it exists, when created again, then ALREADY_EXISTS', () => {
    givenPolicy(policyCreated)
      .when({ type: 'CreatePolicy', data: { firewallPolicy: {} } })
      .thenFails('ALREADY_EXISTS');
  });

  it('given it exists, when updated with the mask "rules", then only the rules change', () => {
    const named: PolicyDomainEvent = {
      type: 'PolicyCreated',
      data: { content: { displayName: 'web', rules: [] }, time: T0 },
    };
    givenPolicy(named)
      .when({
        type: 'UpdatePolicy',
        data: { firewallPolicy: { displayName: 'other', rules: [denyAll] }, updateMask: 'rules' },
      })
      .then([
        {
          type: 'PolicyUpdated',
          data: { content: { displayName: 'web', rules: [denyAll] }, time: T1 },
        },
      ]);
  });

  it('given two rules with one priority, when updated, then INVALID_ARGUMENT', () => {
    givenPolicy(policyCreated)
      .when({
        type: 'UpdatePolicy',
        data: { firewallPolicy: { rules: [allowWeb, { ...denyAll, priority: 10 }] } },
      })
      .thenFails('INVALID_ARGUMENT');
  });

  it('given it was updated, when deleted at the old etag, then ABORTED; at the current one, PolicyDeleted', () => {
    const updated: PolicyDomainEvent = {
      type: 'PolicyUpdated',
      data: { content: { rules: [] }, time: T1 },
    };
    givenPolicy(policyCreated, updated)
      .when({ type: 'DeletePolicy', data: { etag: etagOf(POLICY, 1) } })
      .thenFails('ABORTED');
    givenPolicy(policyCreated, updated)
      .when({ type: 'DeletePolicy', data: { etag: etagOf(POLICY, 2) } }, at(T2))
      .then([{ type: 'PolicyDeleted', data: { time: T2 } }]);
  });

  it('given it was deleted, when updated, then NOT_FOUND', () => {
    givenPolicy(policyCreated, { type: 'PolicyDeleted', data: { time: T1 } })
      .when({ type: 'UpdatePolicy', data: { firewallPolicy: {} } })
      .thenFails('NOT_FOUND');
  });
});

describe('FirewallPolicyExperiment', () => {
  it('given ACTIVE, when started again, then nothing happens (startTime stays)', () => {
    givenExperiment(experimentCreated, previewStarted).when({ type: 'StartPreview' }).then([]);
  });

  it('given never previewed, when stopped, then nothing happens and there is still no previewMetadata', () => {
    const given = givenExperiment(experimentCreated);
    given.when({ type: 'StopPreview' }).then([]);
    expect(experimentView(given.state).previewMetadata).toBeUndefined();
  });

  it('given SUSPENDED, when started, then ACTIVE again with a new startTime', () => {
    const given = givenExperiment(experimentCreated, previewStarted, previewStopped);
    given
      .when({ type: 'StartPreview' }, at(T2))
      .then([{ type: 'PreviewStarted', data: { time: T2 } }]);
    const after = experimentDecider.evolve(given.state, {
      type: 'PreviewStarted',
      data: { time: T2 },
    });
    expect(experimentView(after).previewMetadata).toMatchObject({
      state: 'ACTIVE',
      startTime: T2,
      logPrefix: 'FirewallPolicyPreviewLog',
    });
  });

  it('given ACTIVE, when updated, then the update suspends it with stopTime = now', () => {
    const given = givenExperiment(experimentCreated, previewStarted);
    given
      .when(
        {
          type: 'UpdateExperiment',
          data: { experiment: { annotations: { ticket: 'SEC-2' } }, updateMask: 'annotations' },
        },
        at(T2),
      )
      .then([
        {
          type: 'ExperimentUpdated',
          data: {
            content: { rules: [allowWeb, denyAll] },
            annotations: { ticket: 'SEC-2' },
            time: T2,
            suspended: true,
          },
        },
      ]);
    const [updated] = experimentDecider.decide(
      {
        type: 'UpdateExperiment',
        data: { experiment: { annotations: {} }, updateMask: 'annotations' },
      },
      given.state,
      at(T2),
    );
    expect(experimentView(experimentDecider.evolve(given.state, updated)).previewMetadata).toEqual({
      state: 'SUSPENDED',
      logPrefix: 'FirewallPolicyPreviewLog',
      startTime: T0,
      stopTime: T2,
    });
  });

  it('given it exists, when an unknown field is in the update mask, then INVALID_ARGUMENT', () => {
    givenExperiment(experimentCreated)
      .when({
        type: 'UpdateExperiment',
        data: { experiment: {}, updateMask: 'previewMetadata.state' },
      })
      .thenFails('INVALID_ARGUMENT');
  });

  it('given it exists, when deleted at a stale etag, then ABORTED', () => {
    givenExperiment(experimentCreated, previewStarted)
      .when({ type: 'DeleteExperiment', data: { etag: etagOf(EXPERIMENT, 1) } })
      .thenFails('ABORTED');
  });

  it('given deleted, when started, then NOT_FOUND', () => {
    givenExperiment(experimentCreated, { type: 'ExperimentDeleted', data: { time: T1 } })
      .when({ type: 'StartPreview' })
      .thenFails('NOT_FOUND');
  });
});

describe('commit', () => {
  const policy = givenPolicy(policyCreated).state;
  const commit = (data: CommitCommand['data']): CommitCommand => ({
    type: 'CommitExperiment',
    data,
  });

  it('given a SUSPENDED experiment, when committed, then the live policy takes its rules under its own name', () => {
    const experiment = givenExperiment(experimentCreated, previewStarted, previewStopped).state;
    const decision = decideCommitExperiment(
      commit({ etag: etagOf(EXPERIMENT, 3), livePolicyEtag: etagOf(POLICY, 1) }),
      { experiment, policy },
      at(T2),
    );
    expect(decision).toEqual({
      experiment: [{ type: 'ExperimentCommitted', data: { time: T2 } }],
      policy: [
        {
          type: 'PolicyUpdated',
          data: {
            content: { rules: [allowWeb, denyAll] },
            time: T2,
            committedExperiment: EXPERIMENT,
            source: { kind: 'commit', experimentEtag: etagOf(EXPERIMENT, 3) },
          },
        },
      ],
    });
    const live = policyView(decision.policy.reduce(policyDecider.evolve, policy));
    expect(live).toMatchObject({
      name: POLICY,
      rules: [allowWeb, denyAll],
      etag: etagOf(POLICY, 2),
      createTime: T0,
      updateTime: T2,
    });
  });

  it('without an etag, then INVALID_ARGUMENT, before anything else', () => {
    const experiment = givenExperiment().state;
    expect(statusOf(() => decideCommitExperiment(commit({}), { experiment, policy }, at(T2)))).toBe(
      'INVALID_ARGUMENT',
    );
  });
});
