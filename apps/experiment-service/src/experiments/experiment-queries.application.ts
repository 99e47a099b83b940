import { Injectable } from '@nestjs/common';
import {
  FirewallPolicyExperiment,
  GetRequest,
  HistoryEvent,
  ListExperimentsResponse,
  ListRequest,
  requireExperimentName,
  requirePolicyName,
  pageSizeOf,
  decodeKeyPageToken,
  encodeKeyPageToken,
} from '@rollout/contracts';
import { notFound } from '@rollout/domain/experiment';
import { Aggregates } from '../aggregates/aggregates';
import { parseExperimentFilter } from '../read-models/filter';
import { ExperimentsRepository } from '../aggregates/experiments.repository';
import { CommitProposalsRepository } from './commit-proposals.repository';

@Injectable()
export class ExperimentQueries {
  constructor(
    private readonly aggregates: Aggregates,
    private readonly experiments: ExperimentsRepository,
    private readonly proposals: CommitProposalsRepository,
  ) {}

  async getExperiment({ name }: GetRequest): Promise<FirewallPolicyExperiment> {
    requireExperimentName(name);
    const experiment = await this.experiments.find(name);
    if (!experiment) throw notFound('Experiment', name);
    // A proposal made on another version of the experiment was dropped by the change.
    const proposal = await this.proposals.find(name);
    return proposal?.experimentEtag === experiment.etag
      ? { ...experiment, commitProposal: proposal }
      : experiment;
  }

  async listExperiments(request: ListRequest): Promise<ListExperimentsResponse> {
    const { name: policyName } = requirePolicyName(request.parent, 'parent');
    const conditions = parseExperimentFilter(request.filter);
    const size = pageSizeOf(request.pageSize);
    const query = `${policyName}?${request.filter ?? ''}`;
    const after = decodeKeyPageToken(request.pageToken, query);
    const rows = await this.experiments.list(policyName, after ?? '', size + 1, conditions);
    const page = rows.slice(0, size);
    return {
      experiments: page,
      ...(rows.length > size
        ? { nextPageToken: encodeKeyPageToken(query, page.at(-1)!.name) }
        : {}),
    };
  }

  experimentEvents({ name }: GetRequest): Promise<{ events: HistoryEvent[] }> {
    requireExperimentName(name);
    return this.aggregates.history(name);
  }
}
