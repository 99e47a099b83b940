import { Injectable } from '@nestjs/common';
import {
  FirewallPolicy,
  GetRequest,
  HistoryEvent,
  ListPoliciesResponse,
  ListRequest,
  requireParent,
  requirePolicyName,
  formatParent,
  pageSizeOf,
  decodeKeyPageToken,
  encodeKeyPageToken,
} from '@rollout/contracts';
import { notFound } from '@rollout/domain/experiment';
import { Aggregates } from '../aggregates/aggregates';
import { PoliciesRepository } from '../aggregates/policies.repository';

@Injectable()
export class PolicyQueries {
  constructor(
    private readonly aggregates: Aggregates,
    private readonly policies: PoliciesRepository,
  ) {}

  async getPolicy({ name }: GetRequest): Promise<FirewallPolicy> {
    requirePolicyName(name);
    const policy = await this.policies.find(name);
    if (!policy) throw notFound('Firewall policy', name);
    return policy;
  }

  async listPolicies(request: ListRequest): Promise<ListPoliciesResponse> {
    const parent = formatParent(requireParent(request.parent));
    const size = pageSizeOf(request.pageSize);
    const after = decodeKeyPageToken(request.pageToken, parent);
    const rows = await this.policies.list(parent, after ?? '', size + 1);
    const page = rows.slice(0, size);
    return {
      firewallPolicies: page,
      ...(rows.length > size
        ? { nextPageToken: encodeKeyPageToken(parent, page.at(-1)!.name) }
        : {}),
    };
  }

  policyEvents({ name }: GetRequest): Promise<{ events: HistoryEvent[] }> {
    requirePolicyName(name);
    return this.aggregates.history(name);
  }
}
