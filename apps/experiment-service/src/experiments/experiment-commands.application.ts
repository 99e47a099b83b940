import { Inject, Injectable } from '@nestjs/common';
import {
  CommandContext,
  CommitRequest,
  CreateExperimentRequest,
  DeleteRequest,
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
import {
  Clock,
  ExperimentCommand,
  checkRevisionId,
  decideCommitExperiment,
  experimentFromRevision,
  revisionToRestore,
} from '@rollout/domain/experiment';
import { CLOCK } from '@rollout/platform/service-kit';
import { Aggregates } from '../aggregates/aggregates';
import { commandMetadata } from '../aggregates/command-metadata';
import { PolicyRevisions } from '../policies/policy-revisions.application';
import { ExperimentsRepository } from '../aggregates/experiments.repository';

/**
 * The commands on experiments; each answers an Operation (see experimentAggregate). A command on
 * one experiment is one statement (see CommandHandler.handle); create and commit, which read the
 * live policy too, run in one transaction, once per request id.
 */
@Injectable()
export class ExperimentCommands {
  constructor(
    private readonly aggregates: Aggregates,
    private readonly experiments: ExperimentsRepository,
    private readonly revisions: PolicyRevisions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  createExperiment(request: CreateExperimentRequest): Promise<Operation<FirewallPolicyExperiment>> {
    const policyName = requirePolicyName(request.parent, 'parent');
    const experimentId = requireResourceId('experimentId', request.experimentId);
    const name = formatExperimentName({ ...policyName, experiment: experimentId });
    const metadata = commandMetadata(request);
    const body = (request.experiment ?? {}) as Record<string, unknown>;
    const { store, policies, experiments } = this.aggregates;
    return store.runOnce(metadata.requestId, async (tx) => {
      // One creation per policy at a time, so the experiment count is exact.
      await tx.lock(policyName.name);
      const policy = await policies.load(tx, policyName.name);
      const experimentsOfPolicy = await this.experiments.countOfPolicy(tx.manager, policy.name);
      // Created from a revision (sourceRevision): that revision's rules, e.g. to preview a rollback.
      const experiment =
        body.sourceRevision === undefined
          ? body
          : experimentFromRevision(
              body,
              revisionToRestore(
                await this.revisions.revisions(policy.name, tx),
                checkRevisionId('experiment.sourceRevision', body.sourceRevision),
              ),
              policy.name,
            );
      const command = {
        type: 'CreateExperiment' as const,
        data: { experiment, policy, experimentsOfPolicy },
      };
      return experiments.handleIn(tx, name, command, metadata);
    }) as Promise<Operation<FirewallPolicyExperiment>>;
  }

  updateExperiment(request: UpdateExperimentRequest): Promise<Operation<FirewallPolicyExperiment>> {
    const { name } = requireExperimentName(request.experiment?.name, 'experiment.name');
    const { experiment, updateMask } = request;
    return this.command(request, name, {
      type: 'UpdateExperiment',
      data: { experiment, updateMask },
    });
  }

  deleteExperiment(request: DeleteRequest): Promise<Operation<Record<string, never>>> {
    const { name } = requireExperimentName(request.name);
    return this.command(request, name, { type: 'DeleteExperiment', data: { etag: request.etag } });
  }

  startPreview(request: PreviewRequest): Promise<Operation<FirewallPolicyExperiment>> {
    const { name } = requireExperimentName(request.name);
    const { etag, reason } = request;
    return this.command(request, name, { type: 'StartPreview', data: { etag, reason } });
  }

  stopPreview(request: PreviewRequest): Promise<Operation<FirewallPolicyExperiment>> {
    const { name } = requireExperimentName(request.name);
    const { etag, reason } = request;
    return this.command(request, name, { type: 'StopPreview', data: { etag, reason } });
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
    const { store, experiments, policies } = this.aggregates;
    const { etag, evidence } = request;
    return store.runOnce(metadata.requestId, async (tx) => {
      // Serialised with rollbacks of the policy, so the second of the two finds its etag moved.
      await tx.lock(policyName);
      const experiment = await experiments.load(tx, name);
      const policy = await policies.load(tx, policyName);
      const command = {
        type: 'CommitExperiment' as const,
        data: { etag, livePolicyEtag, evidence },
      };
      const decision = decideCommitExperiment(command, { experiment, policy }, this.clock);
      await experiments.append(tx, name, experiment, decision.experiment, command, metadata);
      const committed = { type: 'CommitExperiment' as const, data: { experiment: name } };
      return policies.append(tx, policyName, policy, decision.policy, committed, metadata);
    }) as Promise<Operation<FirewallPolicy>>;
  }

  /** A command on one experiment; a decision that changes nothing answers with the experiment as it is. */
  private command<T>(
    request: CommandContext,
    name: string,
    command: ExperimentCommand,
  ): Promise<Operation<T>> {
    const metadata = commandMetadata(request);
    return this.aggregates.experiments.handle(name, command, metadata) as Promise<Operation<T>>;
  }
}
