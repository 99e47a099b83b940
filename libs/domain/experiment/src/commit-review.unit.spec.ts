import { CommitProposal, StatusError } from '@rollout/contracts';
import { decideCommitExperiment, experimentDecider, policyDecider } from './commands';
import type { Clock } from '@rollout/contracts';
import { decideProposeCommit } from './decide-commit';
import { etagOf } from './evolve';

const POLICY = 'projects/p/locations/global/firewallPolicies/web';
const EXPERIMENT = `${POLICY}/experiments/tighten`;
const at = (iso: string): Clock => ({ now: () => new Date(iso) });
const T0 = '2026-12-07T09:00:00.000Z';
const T1 = '2026-12-07T10:00:00.000Z';

const policy = policyDecider.evolve(policyDecider.initialState(POLICY), {
  type: 'PolicyCreated',
  data: { content: { displayName: 'Edge', rules: [] }, time: T0 },
});
const experiment = experimentDecider.evolve(experimentDecider.initialState(EXPERIMENT), {
  type: 'ExperimentCreated',
  data: {
    policyName: POLICY,
    content: { displayName: 'Edge', rules: [] },
    annotations: { ticket: 'SEC-42' },
    time: T0,
  },
});
const etag = etagOf(EXPERIMENT, 1);
const reasonOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (error) {
    if (error instanceof StatusError)
      return (error.details[0] as { reason?: string } | undefined)?.reason ?? error.status;
    throw error;
  }
  return undefined;
};

describe('commits that say why', () => {
  it("given a reason, when committed, then the policy's event keeps it and the experiment's annotations", () => {
    const decision = decideCommitExperiment(
      { type: 'CommitExperiment', data: { etag, reason: 'SEC-42' } },
      { experiment, policy },
      at(T1),
    );
    expect(decision.policy[0]).toMatchObject({
      type: 'PolicyUpdated',
      data: {
        content: { displayName: 'Edge', rules: [] },
        source: { kind: 'commit', reason: 'SEC-42', annotations: { ticket: 'SEC-42' } },
      },
    });
  });
});

describe('reviewed commits', () => {
  const proposal = decideProposeCommit(
    experiment,
    policy,
    { etag, reason: 'close SSH', evidence: { reportEtag: 'R1' } },
    { actor: 'alice', requestId: 'propose-1' },
    at(T0),
  );
  const approve = (actor: string, given: CommitProposal | undefined) => () =>
    decideCommitExperiment(
      {
        type: 'ApproveCommit',
        data: { etag, approver: { actor, requestId: 'approve-1' }, proposal: given },
      },
      { experiment, policy },
      at(T1),
    );

  it('given review required, when committed alone, then it is refused as REVIEW_REQUIRED', () => {
    const commit = () =>
      decideCommitExperiment(
        { type: 'CommitExperiment', data: { etag, requireReview: true } },
        { experiment, policy },
        at(T1),
      );
    expect(reasonOf(commit)).toBe('REVIEW_REQUIRED');
  });

  it('given a proposal, when its proposer approves it, then SELF_APPROVAL', () => {
    expect(reasonOf(approve('alice', proposal))).toBe('SELF_APPROVAL');
  });

  it('given no proposal for this version, when approved, then NO_COMMIT_PROPOSAL', () => {
    expect(reasonOf(approve('bob', undefined))).toBe('NO_COMMIT_PROPOSAL');
    expect(reasonOf(approve('bob', { ...proposal, experimentEtag: 'older' }))).toBe(
      'NO_COMMIT_PROPOSAL',
    );
  });

  it('given a proposal, when another editor approves it, then the commit records both, their request ids and the reason', () => {
    expect(approve('bob', proposal)().policy[0].data).toMatchObject({
      source: {
        kind: 'commit',
        reason: 'close SSH',
        review: {
          proposer: 'alice',
          proposerRequestId: 'propose-1',
          proposeTime: T0,
          approver: 'bob',
          approverRequestId: 'approve-1',
          approveTime: T1,
          proposedReportEtag: 'R1',
        },
      },
    });
  });
});
