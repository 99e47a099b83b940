import type { CommitEvidenceRecord } from '@rollout/contracts';
import type { Clock } from './decide';
import {
  PreviewCommandOptions,
  decideCommit,
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

/**
 * The aggregates as deciders (emmett style): `decide(command, state, clock)` → events, and
 * `evolve(state, event)` → state. Inputs are what a client sent; decide validates them.
 */
export type PolicyCommand =
  | { type: 'CreatePolicy'; data: { firewallPolicy: unknown } }
  | { type: 'UpdatePolicy'; data: { firewallPolicy: Record<string, unknown>; updateMask?: string } }
  | { type: 'DeletePolicy'; data: { etag?: string } }
  /** `revision`: the one to restore, read from the policy's stream (undefined: no such revision). */
  | {
      type: 'RollbackPolicy';
      data: { etag?: string; revisionId: string; revision?: RevisionToRestore };
    };

export type ExperimentCommand =
  /** `policy` and `experimentsOfPolicy`: what the creation depends on, read in the same transaction. */
  | {
      type: 'CreateExperiment';
      data: { experiment: unknown; policy: PolicyState; experimentsOfPolicy: number };
    }
  | { type: 'UpdateExperiment'; data: { experiment: Record<string, unknown>; updateMask?: string } }
  | { type: 'DeleteExperiment'; data: { etag?: string } }
  | { type: 'StartPreview'; data?: PreviewCommandOptions }
  | { type: 'StopPreview'; data?: PreviewCommandOptions };

/** Commit spans both aggregates: the experiment ends and the live policy takes its policy. */
export interface CommitCommand {
  type: 'CommitExperiment';
  data: { etag?: string; livePolicyEtag?: string; evidence?: CommitEvidenceRecord };
}

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
