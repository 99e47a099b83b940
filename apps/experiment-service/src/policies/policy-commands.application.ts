import { Inject, Injectable } from '@nestjs/common';
import {
  CreatePolicyRequest,
  DeleteRequest,
  FirewallPolicy,
  UpdatePolicyRequest,
  requireResourceId,
  requireParent,
  requirePolicyName,
  formatPolicyName,
} from '@rollout/contracts';
import type { Answerer } from '@rollout/platform/event-store';
import {
  Clock,
  ExperimentDomainEvent,
  ExperimentState,
  PolicyDomainEvent,
  PolicyState,
  decideExperiment,
  decidePolicy,
  policyView,
} from '@rollout/domain/experiment';
import { Aggregates } from '../aggregates/aggregates';
import { commandMetadata } from '../aggregates/command-metadata';
import { CLOCK } from '@rollout/platform/service-kit';
import { ExperimentsRepository } from '../experiments/experiments.repository';
import { PoliciesRepository } from './policies.repository';

/** Creating, updating and deleting live policies: each in one transaction, once per request id. */
@Injectable()
export class PolicyCommands {
  constructor(
    private readonly aggregates: Aggregates,
    private readonly policies: PoliciesRepository,
    private readonly experiments: ExperimentsRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  createPolicy(request: CreatePolicyRequest): Promise<FirewallPolicy> {
    const parent = requireParent(request.parent);
    const policy = requireResourceId('firewallPolicyId', request.firewallPolicyId);
    const name = formatPolicyName({ ...parent, policy });
    const metadata = commandMetadata(request);
    const decide = (policy: PolicyState) =>
      decidePolicy(
        { type: 'CreatePolicy', data: { firewallPolicy: request.firewallPolicy } },
        policy,
        this.clock,
      );
    return this.aggregates.store.runOnce(metadata.requestId, (tx) =>
      this.aggregates.policies.handleIn(tx, name, decide, this.savedPolicy, metadata),
    );
  }

  updatePolicy(request: UpdatePolicyRequest): Promise<FirewallPolicy> {
    const { name } = requirePolicyName(request.firewallPolicy?.name, 'firewallPolicy.name');
    const metadata = commandMetadata(request);
    const decide = (policy: PolicyState) =>
      decidePolicy(
        {
          type: 'UpdatePolicy',
          data: { firewallPolicy: request.firewallPolicy, updateMask: request.updateMask },
        },
        policy,
        this.clock,
      );
    return this.aggregates.store.runOnce(metadata.requestId, (tx) =>
      this.aggregates.policies.handleIn(tx, name, decide, this.savedPolicy, metadata),
    );
  }

  /** Deleting a live policy deletes its experiments with it, in the same transaction. */
  deletePolicy(request: DeleteRequest): Promise<Record<string, never>> {
    const { name } = requirePolicyName(request.name);
    const metadata = commandMetadata(request);
    const { policies, experiments } = this.aggregates;
    return this.aggregates.store.runOnce(metadata.requestId, async (tx) => {
      // Serialised with experiment creation, so no experiment is created under a deleted policy.
      await tx.lock(name);
      const policy = await policies.load(tx, name);
      const events = decidePolicy(
        { type: 'DeletePolicy', data: { etag: request.etag } },
        policy,
        this.clock,
      );
      // Every stream is read before the first append (see EventTransaction.append).
      const names = await this.experiments.namesOfPolicy(tx.manager, name);
      const cascade = await Promise.all(names.map((each) => experiments.load(tx, each)));
      for (const experiment of cascade) {
        const deleted = decideExperiment(
          { type: 'DeleteExperiment', data: {} },
          experiment,
          this.clock,
        );
        await experiments.append(
          tx,
          experiment.name,
          experiment,
          deleted,
          this.deletedExperiment,
          metadata,
        );
      }
      await policies.append(
        tx,
        name,
        policy,
        events,
        ({ after }) => ({ response: {}, writes: [this.policies.save(after)] }),
        metadata,
      );
      return {};
    });
  }

  /** The policy as it is after the command, and its projection moved with it. */
  private readonly savedPolicy: Answerer<PolicyState, PolicyDomainEvent, FirewallPolicy> = ({
    after,
  }) => ({
    response: policyView(after),
    writes: [this.policies.save(after)],
  });

  private readonly deletedExperiment: Answerer<ExperimentState, ExperimentDomainEvent, undefined> =
    ({ after }) => ({
      response: undefined,
      writes: [this.experiments.save(after)],
    });
}
