import { CommitEvidenceRecord, CommitProposal, Clock, StatusError } from '@rollout/contracts';
import { checkEtag, notFound } from './decide';
import type {
  ExperimentDomainEvent,
  ExperimentState,
  PolicyDomainEvent,
  PolicyState,
  PolicyUpdateSource,
} from './events';

/** AIP-236's commit of an experiment into its live policy, alone or proposed and approved. */

export interface CommitOptions {
  etag?: string;
  livePolicyEtag?: string;
  evidence?: CommitEvidenceRecord;
  reason?: string;
  /** A commit is then a proposal another editor approves. */
  requireReview?: boolean;
}

export interface Caller {
  actor: string;
  requestId?: string;
}

const MAX_COMMIT_REASON = 1000;

function commitReason(reason: unknown): { reason?: string } {
  if (reason === undefined || reason === null || reason === '') return {};
  if (typeof reason !== 'string' || reason.length > MAX_COMMIT_REASON) {
    throw StatusError.invalidArgument(
      `reason must be a string of at most ${MAX_COMMIT_REASON} characters.`,
      [{ field: 'reason', description: `at most ${MAX_COMMIT_REASON} characters` }],
    );
  }
  return { reason };
}

function checkCommittable(
  experiment: ExperimentState,
  policy: PolicyState,
  request: { etag?: string; livePolicyEtag?: string },
  verb: string,
) {
  if (request.etag === undefined || request.etag === '') {
    throw StatusError.invalidArgument(`etag is required to ${verb}.`, [
      { field: 'etag', description: 'required' },
    ]);
  }
  if (!experiment.exists) throw notFound('Experiment', experiment.name);
  if (!policy.exists) throw notFound('Firewall policy', policy.name);
  checkEtag('etag', request.etag, experiment.name, experiment.version);
  checkEtag('livePolicyEtag', request.livePolicyEtag, policy.name, policy.version);
}

function commitEvents(
  experiment: ExperimentState,
  source: Extract<PolicyUpdateSource, { kind: 'commit' }>,
  time: string,
): { experiment: ExperimentDomainEvent[]; policy: PolicyDomainEvent[] } {
  return {
    experiment: [{ type: 'ExperimentCommitted', data: { time } }],
    policy: [
      {
        type: 'PolicyUpdated',
        data: {
          content: experiment.content,
          time,
          committedExperiment: experiment.name,
          source,
        },
      },
    ],
  };
}

const someAnnotations = (annotations: Record<string, string>) =>
  Object.keys(annotations).length ? { annotations } : {};

/** AIP-236. In a project that requires review, a commit alone is refused: proposeCommit, then approveCommit. */
export function decideCommit(
  experiment: ExperimentState,
  policy: PolicyState,
  request: CommitOptions,
  clock: Clock,
): { experiment: ExperimentDomainEvent[]; policy: PolicyDomainEvent[] } {
  checkCommittable(experiment, policy, request, 'commit');
  const reason = commitReason(request.reason);
  if (request.requireReview) {
    throw StatusError.withReason(
      'FAILED_PRECONDITION',
      `The project of "${policy.name}" requires review: propose the commit (proposeCommit) for another editor to approve (approveCommit).`,
      'REVIEW_REQUIRED',
      { resource: experiment.name },
    );
  }
  return commitEvents(
    experiment,
    {
      kind: 'commit',
      experimentEtag: request.etag!,
      ...request.evidence,
      ...reason,
      ...someAnnotations(experiment.annotations),
    },
    clock.now().toISOString(),
  );
}

/**
 * Bound to the experiment's etag (any change drops it) and to the report the proposer saw. Not
 * an event of the experiment: that would move its etag and so start a new preview configuration.
 */
export function decideProposeCommit(
  experiment: ExperimentState,
  policy: PolicyState,
  request: CommitOptions,
  proposer: Caller,
  clock: Clock,
): CommitProposal {
  checkCommittable(experiment, policy, request, 'propose a commit');
  const reportEtag = request.evidence?.reportEtag;
  return {
    experimentEtag: request.etag!,
    proposer: proposer.actor,
    proposeTime: clock.now().toISOString(),
    ...(proposer.requestId ? { requestId: proposer.requestId } : {}),
    ...commitReason(request.reason),
    ...(reportEtag ? { reportEtag } : {}),
  };
}

/** The approver must be another principal than the proposer. */
export function decideApproveCommit(
  experiment: ExperimentState,
  policy: PolicyState,
  request: CommitOptions,
  approver: Caller,
  proposal: CommitProposal | undefined,
  clock: Clock,
): { experiment: ExperimentDomainEvent[]; policy: PolicyDomainEvent[] } {
  checkCommittable(experiment, policy, request, 'approve a commit');
  if (!proposal || proposal.experimentEtag !== request.etag) {
    throw StatusError.withReason(
      'FAILED_PRECONDITION',
      `This version of experiment "${experiment.name}" has no commit proposal to approve (a change of the experiment drops it).`,
      'NO_COMMIT_PROPOSAL',
      { resource: experiment.name },
    );
  }
  if (proposal.proposer === approver.actor) {
    throw StatusError.withReason(
      'PERMISSION_DENIED',
      'The proposer of a commit cannot approve it: another editor must.',
      'SELF_APPROVAL',
      { resource: experiment.name, proposer: proposal.proposer },
    );
  }
  const time = clock.now().toISOString();
  return commitEvents(
    experiment,
    {
      kind: 'commit',
      experimentEtag: request.etag!,
      ...request.evidence,
      ...(proposal.reason ? { reason: proposal.reason } : {}),
      ...someAnnotations(experiment.annotations),
      review: {
        proposer: proposal.proposer,
        ...(proposal.requestId ? { proposerRequestId: proposal.requestId } : {}),
        proposeTime: proposal.proposeTime,
        approver: approver.actor,
        ...(approver.requestId ? { approverRequestId: approver.requestId } : {}),
        approveTime: time,
        ...(proposal.reportEtag ? { proposedReportEtag: proposal.reportEtag } : {}),
      },
    },
    time,
  );
}
