import { Inject, Injectable } from '@nestjs/common';
import {
  CommandContext,
  CommitRequest,
  CreateExperimentRequest,
  DeleteRequest,
  ExperimentAnalysis,
  FirewallPolicy,
  FirewallPolicyExperiment,
  Operation,
  PreviewRequest,
  StatusError,
  UpdateExperimentRequest,
  requireResourceId,
  requireExperimentName,
  requirePolicyName,
  formatExperimentName,
} from '@rollout/contracts';
import { analyzeExperiment } from '@rollout/domain/firewall';
import {
  Clock,
  ExperimentCommand,
  ExperimentState,
  checkRevisionId,
  decideCommitExperiment,
  decideExperiment,
  experimentFromRevision,
  experimentView,
  notFound,
  policyView,
  revisionToRestore,
} from '@rollout/domain/experiment';
import { Aggregates } from '../aggregates/aggregates';
import { commandMetadata } from '../aggregates/command-metadata';
import { CLOCK } from '@rollout/platform/service-kit';
import { newOperation } from '../operations/operation';
import { OperationsRepository } from '../operations/operations.repository';
import { PoliciesRepository } from '../policies/policies.repository';
import { PolicyRevisions } from '../policies/policy-revisions.application';
import { ExperimentsRepository } from './experiments.repository';

/**
 * The commands on experiments; each answers an Operation, kept for GET /v1/operations. A command
 * on one experiment is one statement (see CommandHandler.handle); create and commit, which read
 * the live policy too, run in one transaction, once per request id.
 */
@Injectable()
export class ExperimentCommands {
  constructor(
    private readonly aggregates: Aggregates,
    private readonly experiments: ExperimentsRepository,
    private readonly policies: PoliciesRepository,
    private readonly operations: OperationsRepository,
    private readonly revisions: PolicyRevisions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  createExperiment(request: CreateExperimentRequest): Promise<Operation<FirewallPolicyExperiment>> {
    const policy = requirePolicyName(request.parent, 'parent');
    const policyName = policy.name;
    const name = formatExperimentName({
      ...policy,
      experiment: requireResourceId('experimentId', request.experimentId),
    });
    const metadata = commandMetadata(request);
    const body = (request.experiment ?? {}) as Record<string, unknown>;
    return this.aggregates.store.runOnce(metadata.requestId, async (tx) => {
      // One creation per policy at a time, so the experiment count is exact.
      await tx.lock(policyName);
      const policy = await this.aggregates.policies.load(tx, policyName);
      const experimentsOfPolicy = await this.experiments.countOfPolicy(tx.manager, policyName);
      // Created from a revision (sourceRevision): that revision's rules, e.g. to preview a rollback.
      const experiment =
        body.sourceRevision === undefined
          ? body
          : experimentFromRevision(
              body,
              revisionToRestore(
                await this.revisions.revisions(policyName, tx),
                checkRevisionId('experiment.sourceRevision', body.sourceRevision),
              ),
              policyName,
            );
      const decide = (state: ExperimentState) =>
        decideExperiment(
          { type: 'CreateExperiment', data: { experiment, policy, experimentsOfPolicy } },
          state,
          this.clock,
        );
      return this.aggregates.experiments.handleIn(
        tx,
        name,
        decide,
        ({ after }) => {
          const view = experimentView(after);
          const analysis = analyze(policyView(policy), view);
          const operation = newOperation('create', name, { ...view, analysis }, this.clock.now());
          return {
            response: operation,
            writes: [this.experiments.save(after, analysis), this.operations.save(operation)],
          };
        },
        metadata,
      );
    });
  }

  updateExperiment(request: UpdateExperimentRequest): Promise<Operation<FirewallPolicyExperiment>> {
    const { name } = requireExperimentName(request.experiment?.name, 'experiment.name');
    const command: ExperimentCommand = {
      type: 'UpdateExperiment',
      data: { experiment: request.experiment, updateMask: request.updateMask },
    };
    return this.experimentCommand(request, 'update', name, command) as Promise<
      Operation<FirewallPolicyExperiment>
    >;
  }

  deleteExperiment(request: DeleteRequest): Promise<Operation<Record<string, never>>> {
    const { name } = requireExperimentName(request.name);
    return this.experimentCommand(request, 'delete', name, {
      type: 'DeleteExperiment',
      data: { etag: request.etag },
    }) as Promise<Operation<Record<string, never>>>;
  }

  startPreview(request: PreviewRequest): Promise<Operation<FirewallPolicyExperiment>> {
    const { name } = requireExperimentName(request.name);
    const command: ExperimentCommand = {
      type: 'StartPreview',
      data: { etag: request.etag, reason: request.reason },
    };
    return this.experimentCommand(request, 'startPreview', name, command) as Promise<
      Operation<FirewallPolicyExperiment>
    >;
  }

  stopPreview(request: PreviewRequest): Promise<Operation<FirewallPolicyExperiment>> {
    const { name } = requireExperimentName(request.name);
    const command: ExperimentCommand = {
      type: 'StopPreview',
      data: { etag: request.etag, reason: request.reason },
    };
    return this.experimentCommand(request, 'stopPreview', name, command) as Promise<
      Operation<FirewallPolicyExperiment>
    >;
  }

  /** Atomically: the live policy takes the experiment's policy, and the experiment is gone. */
  commit(request: CommitRequest): Promise<Operation<FirewallPolicy>> {
    const { name, policyName } = requireExperimentName(request.name);
    // `parentEtag` is the deprecated name of `livePolicyEtag` (experiment.v1 1.1.0): both mean the same.
    if (
      request.livePolicyEtag !== undefined &&
      request.parentEtag !== undefined &&
      request.livePolicyEtag !== request.parentEtag
    ) {
      throw StatusError.invalidArgument(
        'livePolicyEtag and its deprecated name parentEtag differ: send livePolicyEtag only.',
        [{ field: 'parentEtag', description: 'deprecated: use livePolicyEtag' }],
      );
    }
    const livePolicyEtag = request.livePolicyEtag ?? request.parentEtag;
    const metadata = commandMetadata(request);
    const { experiments, policies } = this.aggregates;
    const { etag, evidence } = request;
    return this.aggregates.store.runOnce(metadata.requestId, async (tx) => {
      // Serialised with rollbacks of the policy, so the second of the two finds its etag moved.
      await tx.lock(policyName);
      const experiment = await experiments.load(tx, name);
      const policy = await policies.load(tx, policyName);
      const decision = decideCommitExperiment(
        { type: 'CommitExperiment', data: { etag, livePolicyEtag, evidence } },
        { experiment, policy },
        this.clock,
      );
      await experiments.append(
        tx,
        name,
        experiment,
        decision.experiment,
        ({ after }) => ({ response: undefined, writes: [this.experiments.save(after)] }),
        metadata,
      );
      return policies.append(
        tx,
        policyName,
        policy,
        decision.policy,
        ({ after }) => {
          const operation = newOperation('commit', name, policyView(after), this.clock.now());
          return {
            response: operation,
            writes: [this.policies.save(after), this.operations.save(operation)],
          };
        },
        metadata,
      );
    });
  }

  /** A command on one experiment; a decision that changes nothing answers with the experiment as it is. */
  private experimentCommand(
    context: CommandContext,
    verb: string,
    name: string,
    command: ExperimentCommand,
  ): Promise<Operation> {
    const metadata = commandMetadata(context);
    const decide = (experiment: ExperimentState) =>
      decideExperiment(command, experiment, this.clock);
    return this.aggregates.experiments.handle(
      name,
      decide,
      async ({ events, after }) => {
        const view = after.exists ? experimentView(after) : undefined;
        // Only an update changes the rules, so only it analyses them again; other commands keep the stored analysis.
        const analysis =
          view && command.type === 'UpdateExperiment'
            ? analyze(await this.livePolicy(requireExperimentName(name).policyName), view)
            : undefined;
        const operation = newOperation(
          verb,
          name,
          view ? { ...view, ...(analysis ? { analysis } : {}) } : {},
          this.clock.now(),
        );
        const projection = events.length ? [this.experiments.save(after, analysis)] : [];
        return {
          response: operation,
          writes: [...projection, this.operations.save(operation)],
          weight: view && JSON.stringify(view).length,
        };
      },
      metadata,
    );
  }

  /** The live policy an experiment is analysed against, as its projection holds it now. */
  private async livePolicy(name: string): Promise<FirewallPolicy> {
    const policy = await this.policies.find(name);
    if (!policy) throw notFound('Firewall policy', name);
    return policy;
  }
}

/** The experiment compared with the live policy (see analyzeExperiment). */
function analyze(live: FirewallPolicy, experiment: FirewallPolicyExperiment): ExperimentAnalysis {
  return analyzeExperiment(live, experiment.firewallPolicy, live.etag);
}
