import type { Clock, FirewallPolicy, Operation } from '@rollout/contracts';
import {
  PolicyCommand,
  PolicyDomainEvent,
  PolicyState,
  policyDecider,
  policyView,
} from '@rollout/domain/experiment';
import type { Aggregate } from '@rollout/platform/event-store';
import { newOperation } from './operation';
import type { PoliciesRepository } from './policies.repository';

export type PolicyAggregateCommand =
  PolicyCommand | { type: 'CommitExperiment'; data: { experiment: string } };

export type PolicyAnswer = FirewallPolicy | Record<string, never> | Operation<FirewallPolicy>;

export function policyAggregate(
  policies: PoliciesRepository,
  clock: Clock,
): Aggregate<PolicyState, PolicyAggregateCommand, PolicyDomainEvent, FirewallPolicy, PolicyAnswer> {
  const answer = (command: PolicyAggregateCommand, view: FirewallPolicy | undefined) => {
    switch (command.type) {
      case 'DeletePolicy':
        return {};
      case 'RollbackPolicy':
        return newOperation('rollback', view!.name, view!, clock.now());
      case 'CommitExperiment':
        return newOperation('commit', command.data.experiment, view!, clock.now());
      default:
        return view!;
    }
  };
  return {
    initialState: policyDecider.initialState,
    decide: (command, state) => {
      if (command.type === 'CommitExperiment')
        throw new Error('a commit is decided with its experiment');
      return policyDecider.decide(command, state, clock);
    },
    evolve: policyDecider.evolve,
    view: (state) => (state.exists ? policyView(state) : undefined),
    project: ({ command, after, view, resource }) => ({
      response: answer(command, view),
      writes: [policies.save(after, resource)],
    }),
  };
}
