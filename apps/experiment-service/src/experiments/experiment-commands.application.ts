import { Inject, Injectable } from '@nestjs/common';
import {
  CommandContext,
  ApproveCommitRequest,
  Clock,
  CommitRequest,
  CreateExperimentRequest,
  ProposeCommitRequest,
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
  Caller,
  CommitCommand,
  ExperimentCommand,
  decideProposeCommit,
  experimentView,
  shownRequestId,
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
import { ProjectSettingsRepository } from '../projects/project-settings.repository';
import { newOperation } from '../aggregates/operation';
import { RecordedMetadata } from '../aggregates/command-metadata';
import type { EventTransaction } from '@rollout/platform/event-store';
import { CommitProposalsRepository } from './commit-proposals.repository';

/** Create and commit read the live policy too: they run in one transaction, once per request id. */
@Injectable()
export class ExperimentCommands {
  constructor(
    private readonly aggregates: Aggregates,
    private readonly experiments: ExperimentsRepository,
    private readonly revisions: PolicyRevisions,
    private readonly settings: ProjectSettingsRepository,
    private readonly proposals: CommitProposalsRepository,
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
      // A copy of the live policy, or of a revision (sourceRevision), e.g. to preview a rollback.
      const revision =
        body.sourceRevision === undefined
          ? undefined
          : revisionToRestore(
              await this.revisions.revisions(policy.name, tx),
              checkRevisionId('experiment.sourceRevision', body.sourceRevision),
            );
      const experiment =
        body.sourceRevision === undefined
          ? body
          : experimentFromRevision(body, revision, policy.name);
      const command = {
        type: 'CreateExperiment' as const,
        data: {
          experiment,
          policy,
          experimentsOfPolicy,
          ...(revision?.content ? { source: revision.content } : {}),
        },
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

  /** Refused in a project that requires review (proposeCommit, approveCommit). */
  commit(request: CommitRequest): Promise<Operation<FirewallPolicy>> {
    const livePolicyEtag = livePolicyEtagOf(request);
    const { etag, evidence, reason } = request;
    return this.commitCommand(request, (requireReview) => ({
      type: 'CommitExperiment',
      data: { etag, livePolicyEtag, evidence, reason, requireReview },
    })) as Promise<Operation<FirewallPolicy>>;
  }

  proposeCommit(request: ProposeCommitRequest): Promise<Operation<FirewallPolicyExperiment>> {
    const { name, policyName } = requireExperimentName(request.name);
    const metadata = commandMetadata(request);
    const { etag, evidence, reason, livePolicyEtag } = request;
    const { store, experiments, policies } = this.aggregates;
    return store.runOnce(metadata.requestId, async (tx) => {
      await tx.lock(policyName);
      const experiment = await experiments.load(tx, name);
      const policy = await policies.load(tx, policyName);
      const proposal = decideProposeCommit(
        experiment,
        policy,
        { etag, livePolicyEtag, evidence, reason },
        callerOf(metadata),
        this.clock,
      );
      await this.proposals.save(name, proposal, tx.manager);
      const view = { ...experimentView(experiment), commitProposal: proposal };
      return newOperation('proposeCommit', name, view, this.clock.now());
    });
  }

  approveCommit(request: ApproveCommitRequest): Promise<Operation<FirewallPolicy>> {
    const { etag, evidence, livePolicyEtag } = request;
    return this.commitCommand(request, async (_requireReview, approver, tx) => ({
      type: 'ApproveCommit',
      data: {
        etag,
        livePolicyEtag,
        evidence,
        approver,
        proposal: await this.proposals.find(request.name, tx.manager),
      },
    })) as Promise<Operation<FirewallPolicy>>;
  }

  /** Under the policy's lock, so of a commit and a rollback on one etag, the second finds it moved. */
  private commitCommand(
    request: CommandContext & { name: string },
    commandOf: (
      requireReview: boolean,
      caller: Caller,
      tx: EventTransaction,
    ) => CommitCommand | Promise<CommitCommand>,
  ): Promise<unknown> {
    const { name, policyName, project } = requireExperimentName(request.name);
    const metadata = commandMetadata(request);
    const { store, experiments, policies } = this.aggregates;
    return store.runOnce(metadata.requestId, async (tx) => {
      await tx.lock(policyName);
      const experiment = await experiments.load(tx, name);
      const policy = await policies.load(tx, policyName);
      const settings = await this.settings.settings(project, tx.manager);
      const command = await commandOf(settings.requireCommitReview, callerOf(metadata), tx);
      const decision = decideCommitExperiment(command, { experiment, policy }, this.clock);
      await experiments.append(tx, name, experiment, decision.experiment, command, metadata);
      await this.proposals.remove(name, tx.manager);
      const committed = { type: 'CommitExperiment' as const, data: { experiment: name } };
      return policies.append(tx, policyName, policy, decision.policy, committed, metadata);
    });
  }

  private command<T>(
    request: CommandContext,
    name: string,
    command: ExperimentCommand,
  ): Promise<Operation<T>> {
    const metadata = commandMetadata(request);
    return this.aggregates.experiments.handle(name, command, metadata) as Promise<Operation<T>>;
  }
}

/** `parentEtag` is the deprecated name of `livePolicyEtag` (experiment.v1 1.1.0): both mean the same. */
function livePolicyEtagOf(request: CommitRequest): string | undefined {
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
  return request.livePolicyEtag ?? request.parentEtag;
}

function callerOf(metadata: RecordedMetadata): Caller {
  const requestId = shownRequestId(metadata);
  return { actor: metadata.actor, ...(requestId ? { requestId } : {}) };
}
