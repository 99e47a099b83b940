import { StatusError } from '@rollout/contracts';
import type { FirewallRule } from '@rollout/contracts';
import {
  PolicyCommand,
  decideCommitExperiment,
  experimentDecider,
  policyDecider,
} from './commands';
import type { Clock } from '@rollout/contracts';
import type { ExperimentDomainEvent, PolicyDomainEvent } from './events';
import { etagOf } from './evolve';
import {
  StoredPolicyEvent,
  experimentFromRevision,
  revisionToRestore,
  revisionsOf,
} from './revisions';

const POLICY = 'projects/p/locations/global/firewallPolicies/web';
const EXPERIMENT = `${POLICY}/experiments/tighten`;
const T0 = '2026-11-22T10:00:00.000Z';
const T1 = '2026-11-22T11:00:00.000Z';
const at = (iso: string): Clock => ({ now: () => new Date(iso) });
const rule = (priority: number, action: 'allow' | 'deny'): FirewallRule => ({
  priority,
  direction: 'INGRESS',
  action,
  match: { srcIpRanges: ['0.0.0.0/0'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] },
});
const openSsh = [rule(100, 'allow')];
const closedSsh = [rule(100, 'deny')];

const created: PolicyDomainEvent = {
  type: 'PolicyCreated',
  data: { content: { displayName: 'Edge', description: 'v1', rules: openSsh }, time: T0 },
};
const updated: PolicyDomainEvent = {
  type: 'PolicyUpdated',
  data: { content: { rules: closedSsh }, time: T0 },
};

/** The policy's events as the store reads them back, versions from 1. */
const stored = (...events: { type: string; data: unknown }[]): StoredPolicyEvent[] =>
  events.map((event, i) => ({ ...event, version: i + 1, time: T0, actor: 'alice' }));

const givenPolicy = (...history: PolicyDomainEvent[]) => {
  const state = history.reduce(policyDecider.evolve, policyDecider.initialState(POLICY));
  const revisions = revisionsOf(POLICY, stored(...history));
  return {
    state,
    revisions,
    whenRolledBack: (revisionId: string, etag: string | undefined) => {
      const command: PolicyCommand = {
        type: 'RollbackPolicy',
        data: { etag, revisionId, revision: revisionToRestore(revisions, revisionId) },
      };
      return policyDecider.decide(command, state, at(T1));
    },
  };
};

const statusOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    if (error instanceof StatusError) return error.status;
    throw error;
  }
  throw new Error('expected a StatusError');
};

describe('revisions of a live policy', () => {
  it('given a create, an update and a deletion, then two revisions with their rules, numbered by version', () => {
    const { revisions } = givenPolicy(created, updated, {
      type: 'PolicyDeleted',
      data: { time: T1 },
    });
    expect(revisions).toEqual([
      expect.objectContaining({ revisionId: '1', source: { kind: 'create' }, rules: openSsh }),
      expect.objectContaining({
        name: `${POLICY}/revisions/2`,
        revisionId: '2',
        source: { kind: 'update' },
        etag: etagOf(POLICY, 2),
        rules: closedSsh,
      }),
    ]);
  });

  it('given a stored event without a rule body, then its revision has rules null', () => {
    const legacy = stored(created, { type: 'PolicyUpdated', data: { time: T0 } });
    expect(revisionsOf(POLICY, legacy)[1]).toMatchObject({ revisionId: '2', rules: null });
  });

  it('given a commit with its evidence, then the revision names the experiment, its etag, the reportEtag and gates', () => {
    const policy = givenPolicy(created).state;
    const experiment = [
      {
        type: 'ExperimentCreated',
        data: { policyName: POLICY, content: { rules: closedSsh }, annotations: {}, time: T0 },
      } as ExperimentDomainEvent,
    ].reduce(experimentDecider.evolve, experimentDecider.initialState(EXPERIMENT));
    const gates = {
      required: true,
      gates: [{ kind: 'minEvaluated', holds: true, description: 'ok' }],
    };
    const decision = decideCommitExperiment(
      {
        type: 'CommitExperiment',
        data: { etag: etagOf(EXPERIMENT, 1), evidence: { reportEtag: 'R1', gates } },
      },
      { experiment, policy },
      at(T1),
    );
    const [revision] = revisionsOf(POLICY, stored(created, ...decision.policy)).slice(1);
    expect(revision.source).toEqual({
      kind: 'commit',
      experiment: EXPERIMENT,
      experimentEtag: etagOf(EXPERIMENT, 1),
      reportEtag: 'R1',
      gates,
    });
  });

  it('given the x-request-id of the call, then the revision shows it rather than the AIP-155 id', () => {
    const [revision] = revisionsOf(POLICY, [
      { ...stored(created)[0], traceId: 'trace-1', requestId: 'cmd-1' },
    ]);
    expect(revision.requestId).toBe('trace-1');
  });
});

describe('rollback', () => {
  it('given two revisions, when rolled back to the first with the current etag, then its whole resource is live as a new revision', () => {
    const policy = givenPolicy(created, updated);
    const events = policy.whenRolledBack('1', etagOf(POLICY, 2));
    expect(events).toEqual([
      {
        type: 'PolicyUpdated',
        data: {
          content: { displayName: 'Edge', description: 'v1', rules: openSsh },
          time: T1,
          source: { kind: 'rollback', rolledBackTo: '1' },
        },
      },
    ]);
    const after = events.reduce(policyDecider.evolve, policy.state);
    expect(after).toMatchObject({ version: 3, content: { rules: openSsh } });
    expect(revisionsOf(POLICY, stored(created, updated, ...events))[2]).toMatchObject({
      revisionId: '3',
      source: { kind: 'rollback', rolledBackTo: '1' },
      rules: openSsh,
    });
  });

  it('given a stale etag, when rolled back, then ABORTED, as a commit would be', () => {
    expect(
      statusOf(() => givenPolicy(created, updated).whenRolledBack('1', etagOf(POLICY, 1))),
    ).toBe('ABORTED');
  });

  it('without an etag, then INVALID_ARGUMENT', () => {
    expect(statusOf(() => givenPolicy(created, updated).whenRolledBack('1', undefined))).toBe(
      'INVALID_ARGUMENT',
    );
  });

  it('given a revision that does not exist, then NOT_FOUND', () => {
    expect(statusOf(() => givenPolicy(created).whenRolledBack('7', etagOf(POLICY, 1)))).toBe(
      'NOT_FOUND',
    );
  });

  it('given a revision stored without rules, then FAILED_PRECONDITION and nothing changes', () => {
    const state = givenPolicy(created, updated).state;
    const command: PolicyCommand = {
      type: 'RollbackPolicy',
      data: {
        etag: etagOf(POLICY, 2),
        revisionId: '1',
        revision: { revisionId: '1', content: null },
      },
    };
    expect(statusOf(() => policyDecider.decide(command, state, at(T1)))).toBe(
      'FAILED_PRECONDITION',
    );
  });
});

describe('an experiment from a revision', () => {
  it("given sourceRevision, then the revision's whole resource stands in for the experiment's policy", () => {
    const body = { sourceRevision: '1', annotations: { why: 'preview rollback' } };
    const revision = { revisionId: '1', content: { displayName: 'Edge', rules: openSsh } };
    expect(experimentFromRevision(body, revision, POLICY)).toEqual({
      annotations: { why: 'preview rollback' },
      firewallPolicy: { displayName: 'Edge', rules: openSsh },
    });
  });

  it('given sourceRevision and a description, then the description replaces the revision one', () => {
    const body = { sourceRevision: '1', firewallPolicy: { description: 'undo SEC-42' } };
    const revision = { revisionId: '1', content: { description: 'v1', rules: openSsh } };
    expect(experimentFromRevision(body, revision, POLICY)).toEqual({
      firewallPolicy: { description: 'undo SEC-42', rules: openSsh },
    });
  });

  it('given rules as well, then INVALID_ARGUMENT', () => {
    const body = { sourceRevision: '1', firewallPolicy: { rules: closedSsh } };
    expect(
      statusOf(() =>
        experimentFromRevision(body, { revisionId: '1', content: { rules: openSsh } }, POLICY),
      ),
    ).toBe('INVALID_ARGUMENT');
  });

  it('given sourceRevision on an update, then INVALID_ARGUMENT: it is for creation only', () => {
    const experiment = [
      {
        type: 'ExperimentCreated',
        data: { policyName: POLICY, content: { rules: openSsh }, annotations: {}, time: T0 },
      } as ExperimentDomainEvent,
    ].reduce(experimentDecider.evolve, experimentDecider.initialState(EXPERIMENT));
    const update = {
      type: 'UpdateExperiment' as const,
      data: { experiment: { sourceRevision: '1' } },
    };
    expect(statusOf(() => experimentDecider.decide(update, experiment, at(T1)))).toBe(
      'INVALID_ARGUMENT',
    );
  });
});

describe('an experiment from the live policy', () => {
  const live = [created].reduce(policyDecider.evolve, policyDecider.initialState(POLICY));
  const create = (experiment: unknown) =>
    experimentDecider.decide(
      { type: 'CreateExperiment', data: { experiment, policy: live, experimentsOfPolicy: 0 } },
      experimentDecider.initialState(EXPERIMENT),
      at(T1),
    );

  it('given a body with rules only, then it starts with the live display name and description', () => {
    const [event] = create({ firewallPolicy: { rules: closedSsh } });
    expect(event).toMatchObject({
      type: 'ExperimentCreated',
      data: { content: { displayName: 'Edge', description: 'v1', rules: closedSsh } },
    });
  });

  it('given a display name in the body, then it replaces the live one and the description is kept', () => {
    const [event] = create({ firewallPolicy: { displayName: 'Edge (tight)', rules: [] } });
    expect(event).toMatchObject({
      data: { content: { displayName: 'Edge (tight)', description: 'v1', rules: [] } },
    });
  });
});
