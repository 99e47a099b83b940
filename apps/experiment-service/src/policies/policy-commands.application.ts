import { Injectable } from '@nestjs/common';
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
import { Aggregates } from '../aggregates/aggregates';
import { commandMetadata } from '../aggregates/command-metadata';
import { ExperimentsRepository } from '../aggregates/experiments.repository';

@Injectable()
export class PolicyCommands {
  constructor(
    private readonly aggregates: Aggregates,
    private readonly experiments: ExperimentsRepository,
  ) {}

  createPolicy(request: CreatePolicyRequest): Promise<FirewallPolicy> {
    const parent = requireParent(request.parent);
    const policy = requireResourceId('firewallPolicyId', request.firewallPolicyId);
    const name = formatPolicyName({ ...parent, policy });
    const { firewallPolicy } = request;
    return this.aggregates.policies.handle(
      name,
      { type: 'CreatePolicy', data: { firewallPolicy } },
      commandMetadata(request),
    ) as Promise<FirewallPolicy>;
  }

  updatePolicy(request: UpdatePolicyRequest): Promise<FirewallPolicy> {
    const { name } = requirePolicyName(request.firewallPolicy?.name, 'firewallPolicy.name');
    const { firewallPolicy, updateMask } = request;
    return this.aggregates.policies.handle(
      name,
      { type: 'UpdatePolicy', data: { firewallPolicy, updateMask } },
      commandMetadata(request),
    ) as Promise<FirewallPolicy>;
  }

  deletePolicy(request: DeleteRequest): Promise<Record<string, never>> {
    const { name } = requirePolicyName(request.name);
    const metadata = commandMetadata(request);
    const { store, policies, experiments } = this.aggregates;
    return store.runOnce(metadata.requestId, async (tx) => {
      // Serialised with experiment creation, so no experiment is created under a deleted policy.
      await tx.lock(name);
      const policy = await policies.load(tx, name);
      const command = { type: 'DeletePolicy' as const, data: { etag: request.etag } };
      const events = policies.decide(command, policy);
      // Every stream is read before the first append (see EventTransaction.appendAtomically).
      const names = await this.experiments.namesOfPolicy(tx.manager, name);
      const cascade = await Promise.all(names.map((each) => experiments.load(tx, each)));
      for (const experiment of cascade) {
        const deleted = { type: 'DeleteExperiment' as const, data: {} };
        const events = experiments.decide(deleted, experiment);
        await experiments.append(tx, experiment.name, experiment, events, deleted, metadata);
      }
      await policies.append(tx, name, policy, events, command, metadata);
      return {};
    });
  }
}
