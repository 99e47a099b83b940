import type {
  Clock,
  ExperimentAnalysis,
  FirewallPolicy,
  FirewallPolicyExperiment,
  Operation,
} from '@rollout/contracts';
import { requireExperimentName } from '@rollout/contracts';
import { analyzeExperiment } from '@rollout/domain/firewall';
import {
  CommitCommand,
  ExperimentCommand,
  ExperimentDomainEvent,
  ExperimentState,
  experimentDecider,
  experimentView,
  notFound,
  policyView,
} from '@rollout/domain/experiment';
import type { Aggregate, Decided, StateCache } from '@rollout/platform/event-store';
import { newOperation, operationJson } from './operation';
import type { PoliciesRepository } from './policies.repository';
import type { ExperimentsRepository } from './experiments.repository';

export type ExperimentAggregateCommand = ExperimentCommand | CommitCommand;

type ExperimentDecided = Decided<
  ExperimentState,
  ExperimentAggregateCommand,
  ExperimentDomainEvent,
  FirewallPolicyExperiment
>;

const VERBS: Record<ExperimentAggregateCommand['type'], string> = {
  CreateExperiment: 'create',
  UpdateExperiment: 'update',
  DeleteExperiment: 'delete',
  StartPreview: 'startPreview',
  StopPreview: 'stopPreview',
  CommitExperiment: 'commit',
  ApproveCommit: 'approveCommit',
};

export function experimentAggregate(
  experiments: ExperimentsRepository,
  policies: PoliciesRepository,
  clock: Clock,
  cache: StateCache<ExperimentState>,
): Aggregate<
  ExperimentState,
  ExperimentAggregateCommand,
  ExperimentDomainEvent,
  FirewallPolicyExperiment,
  Operation
> {
  const analysisOf = async ({
    command,
    view,
  }: ExperimentDecided): Promise<ExperimentAnalysis | undefined> => {
    // Only create and update change the rules, so only they analyse them; others keep the stored analysis.
    if (!view) return undefined;
    if (command.type === 'CreateExperiment') return analyze(policyView(command.data.policy), view);
    if (command.type !== 'UpdateExperiment') return undefined;
    const { policyName } = requireExperimentName(view.name);
    const live = await policies.find(policyName);
    if (!live) throw notFound('Firewall policy', policyName);
    return analyze(live, view);
  };
  return {
    initialState: experimentDecider.initialState,
    decide: (command, state) => {
      if (command.type === 'CommitExperiment' || command.type === 'ApproveCommit')
        throw new Error('a commit is decided with its policy');
      return experimentDecider.decide(command, state, clock);
    },
    evolve: experimentDecider.evolve,
    view: (state) => (state.exists ? experimentView(state) : undefined),
    cache,
    async project(decided) {
      const { command, events, after, view, resource } = decided;
      const analysis = await analysisOf(decided);
      const response = view ? { ...view, ...(analysis ? { analysis } : {}) } : {};
      const operation = newOperation(VERBS[command.type], after.name, response, clock.now());
      const analysisJson = analysis && JSON.stringify(analysis);
      return {
        response: operation,
        writes: events.length ? [experiments.save(after, resource, analysisJson)] : [],
        answer: operationJson(operation, resource, analysisJson),
      };
    },
  };
}

function analyze(live: FirewallPolicy, experiment: FirewallPolicyExperiment): ExperimentAnalysis {
  return analyzeExperiment(live, experiment.firewallPolicy, live.etag);
}
