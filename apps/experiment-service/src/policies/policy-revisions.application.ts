import { Injectable } from '@nestjs/common';
import {
  FirewallPolicy,
  GetRequest,
  ListRevisionsRequest,
  ListRevisionsResponse,
  Operation,
  PolicyDiffRequest,
  Revision,
  RollbackRequest,
  RuleDiff,
  StatusError,
  requireExperimentName,
  requirePolicyName,
  requireRevisionName,
  formatRevisionName,
  pageSizeOf,
  decodeKeyPageToken,
  encodeKeyPageToken,
} from '@rollout/contracts';
import type { EventTransaction } from '@rollout/platform/event-store';
import {
  checkRevisionId,
  notFound,
  revisionContent,
  revisionToRestore,
  revisionsOf,
  ruleDiff,
} from '@rollout/domain/experiment';
import { Aggregates } from '../aggregates/aggregates';
import { RecordedMetadata, commandMetadata } from '../aggregates/command-metadata';
import { ExperimentsRepository } from '../aggregates/experiments.repository';
import { PoliciesRepository } from '../aggregates/policies.repository';

/** AIP-162 revisions, read from the policies' event streams. */
@Injectable()
export class PolicyRevisions {
  constructor(
    private readonly aggregates: Aggregates,
    private readonly policies: PoliciesRepository,
    private readonly experiments: ExperimentsRepository,
  ) {}

  async listRevisions(request: ListRevisionsRequest): Promise<ListRevisionsResponse> {
    const { name } = requirePolicyName(request.name);
    const size = pageSizeOf(request.pageSize);
    const after = decodeKeyPageToken(request.pageToken, `${name}/revisions`);
    const newestFirst = (await this.revisions(name)).reverse();
    const start =
      after === undefined ? 0 : newestFirst.findIndex((r) => r.revisionId === after) + 1;
    const page = newestFirst.slice(start, start + size);
    const more = start + size < newestFirst.length;
    return {
      revisions: page,
      ...(more
        ? { nextPageToken: encodeKeyPageToken(`${name}/revisions`, page.at(-1)!.revisionId) }
        : {}),
    };
  }

  async getRevision({ name }: GetRequest): Promise<Revision> {
    const { policyName, revisionId } = requireRevisionName(name);
    const revision = (await this.revisions(policyName)).find((r) => r.revisionId === revisionId);
    if (!revision) throw notFound('Revision', name);
    return revision;
  }

  async policyDiff(request: PolicyDiffRequest): Promise<RuleDiff> {
    const { name } = requirePolicyName(request.name);
    const fromId = checkRevisionId('fromRevision', request.fromRevision);
    const revisions = await this.revisions(name);
    const toId =
      request.toRevision === undefined || request.toRevision === ''
        ? revisions.at(-1)?.revisionId
        : checkRevisionId('toRevision', request.toRevision);
    const side = (id: string | undefined) => {
      const revision = revisions.find((r) => r.revisionId === id);
      if (!revision) throw notFound('Revision', formatRevisionName(name, id ?? ''));
      if (revision.rules === null)
        throw StatusError.withReason(
          'FAILED_PRECONDITION',
          `Revision ${revision.revisionId} of "${name}" was recorded without its rules.`,
          'REVISION_WITHOUT_RULES',
          { resource: name, revision: revision.revisionId },
        );
      return {
        revision: revision.revisionId,
        etag: revision.etag,
        label: `revision ${revision.revisionId} (${revision.source.kind})`,
        content: revisionContent(revision)!,
      };
    };
    return ruleDiff(side(fromId), side(toId));
  }

  async experimentDiff({ name }: GetRequest): Promise<RuleDiff> {
    const { policyName, experiment: id } = requireExperimentName(name);
    const experiment = await this.experiments.find(name);
    if (!experiment) throw notFound('Experiment', name);
    const live = await this.policies.find(policyName);
    if (!live) throw notFound('Firewall policy', policyName);
    const current = (await this.revisions(policyName)).at(-1);
    return ruleDiff(
      {
        ...(current ? { revision: current.revisionId } : {}),
        etag: live.etag,
        label: current ? `live policy (revision ${current.revisionId})` : 'live policy',
        content: live,
      },
      {
        etag: experiment.etag,
        label: `experiment ${id}`,
        content: experiment.firewallPolicy,
      },
    );
  }

  /** Locked as a commit locks the policy: of a rollback and a commit on one etag, the second finds the etag moved. */
  rollback(request: RollbackRequest): Promise<Operation<FirewallPolicy>> {
    const { name } = requirePolicyName(request.name);
    const revisionId = checkRevisionId('revisionId', request.revisionId);
    const metadata = commandMetadata(request);
    const { store, policies } = this.aggregates;
    return store.runOnce(metadata.requestId, async (tx) => {
      await tx.lock(name);
      const policy = await policies.load(tx, name);
      const revision = revisionToRestore(await this.revisions(name, tx), revisionId);
      const command = {
        type: 'RollbackPolicy' as const,
        data: { etag: request.etag, revisionId, revision, reason: request.reason },
      };
      const events = policies.decide(command, policy);
      return policies.append(tx, name, policy, events, command, metadata);
    }) as Promise<Operation<FirewallPolicy>>;
  }

  async revisions(name: string, tx?: EventTransaction): Promise<Revision[]> {
    const events = await (tx ?? this.aggregates.store).readStream(name);
    if (events.length === 0) throw notFound('Firewall policy', name);
    return revisionsOf(
      name,
      events.map((e) => {
        const metadata = e.metadata as RecordedMetadata;
        return {
          type: e.type,
          version: e.version,
          data: e.data,
          time: e.createdAt.toISOString(),
          actor: metadata.actor,
          traceId: metadata.traceId,
          requestId: metadata.requestId,
        };
      }),
    );
  }
}
