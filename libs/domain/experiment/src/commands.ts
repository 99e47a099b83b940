import type { Clock, CommitProposal, PolicyContent } from '@rollout/contracts';
import { Caller, CommitOptions, decideApproveCommit, decideCommit } from './decide-commit';
import {
  PreviewCommandOptions,
  decideCreateExperiment,
  decideDeleteExperiment,
  decideStartPreview,
  decideStopPreview,
  decideUpdateExperiment,
} from './decide-experiment';
import {
  RevisionToRestore,
  decideCreatePolicy,
  decideDeletePolicy,
  decideRollback,
  decideUpdatePolicy,
} from './decide-policy';
import type {
  ExperimentDomainEvent,
  ExperimentState,
  PolicyDomainEvent,
  PolicyState,
} from './events';
import { evolveExperiment, evolvePolicy, initialExperiment, initialPolicy } from './evolve';

/** emmett-style deciders; inputs are what a client sent, and decide validates them. */
export type PolicyCommand =
  | { type: 'CreatePolicy'; data: { firewallPolicy: unknown } }
  | { type: 'UpdatePolicy'; data: { firewallPolicy: Record<string, unknown>; updateMask?: string } }
  | { type: 'DeletePolicy'; data: { etag?: string } }
  /** read from the policy's stream; undefined: no such revision. */
  | {
      type: 'RollbackPolicy';
      data: { etag?: string; revisionId: string; revision?: RevisionToRestore; reason?: string };
    };

export type ExperimentCommand =
  /** `policy` and `experimentsOfPolicy` are read in the same transaction; `source` defaults to the live policy's resource. */
  | {
      type: 'CreateExperiment';
      data: {
        experiment: unknown;
        policy: PolicyState;
        experimentsOfPolicy: number;
        source?: PolicyContent;
      };
    }
  | { type: 'UpdateExperiment'; data: { experiment: Record<string, unknown>; updateMask?: string } }
  | { type: 'DeleteExperiment'; data: { etag?: string } }
  | { type: 'StartPreview'; data?: PreviewCommandOptions }
  | { type: 'StopPreview'; data?: PreviewCommandOptions };

/** Spans both aggregates. An approval of a proposal (decideProposeCommit) commits as well. */
export type CommitCommand =
  | { type: 'CommitExperiment'; data: CommitOptions }
  | {
      type: 'ApproveCommit';
      data: CommitOptions & { approver: Caller; proposal?: CommitProposal };
    };

export function decidePolicy(
  command: PolicyCommand,
  state: PolicyState,
  clock: Clock,
): PolicyDomainEvent[] {
  switch (command.type) {
    case 'CreatePolicy':
      return decideCreatePolicy(state, command.data.firewallPolicy, clock);
    case 'UpdatePolicy':
      return decideUpdatePolicy(state, command.data.firewallPolicy, command.data.updateMask, clock);
    case 'DeletePolicy':
      return decideDeletePolicy(state, command.data.etag, clock);
    case 'RollbackPolicy':
      return decideRollback(state, command.data, clock);
  }
}

export function decideExperiment(
  command: ExperimentCommand,
  state: ExperimentState,
  clock: Clock,
): ExperimentDomainEvent[] {
  switch (command.type) {
    case 'CreateExperiment':
      return decideCreateExperiment(
        state,
        command.data.policy,
        command.data.experimentsOfPolicy,
        command.data.experiment,
        clock,
        command.data.source,
      );
    case 'UpdateExperiment':
      return decideUpdateExperiment(state, command.data.experiment, command.data.updateMask, clock);
    case 'DeleteExperiment':
      return decideDeleteExperiment(state, command.data.etag, clock);
    case 'StartPreview':
      return decideStartPreview(state, clock, command.data);
    case 'StopPreview':
      return decideStopPreview(state, clock, command.data);
  }
}

export function decideCommitExperiment(
  command: CommitCommand,
  state: { experiment: ExperimentState; policy: PolicyState },
  clock: Clock,
): { experiment: ExperimentDomainEvent[]; policy: PolicyDomainEvent[] } {
  if (command.type === 'ApproveCommit')
    return decideApproveCommit(
      state.experiment,
      state.policy,
      command.data,
      command.data.approver,
      command.data.proposal,
      clock,
    );
  return decideCommit(state.experiment, state.policy, command.data, clock);
}

export const policyDecider = {
  decide: decidePolicy,
  evolve: evolvePolicy,
  initialState: initialPolicy,
};
export const experimentDecider = {
  decide: decideExperiment,
  evolve: evolveExperiment,
  initialState: initialExperiment,
};
