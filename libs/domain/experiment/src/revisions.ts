import type { PolicyContent, Revision, RevisionSource } from '@rollout/contracts';
import { REVISION_ID, StatusError, formatRevisionName } from '@rollout/contracts';
import type { PolicyUpdateSource } from './events';
import { etagOf } from './evolve';
import type { RevisionToRestore } from './decide-policy';

/** Any version of its data. */
export interface StoredPolicyEvent {
  type: string;
  version: number;
  data: unknown;
  time: string;
  actor: string;
  /** Recorded since experiment.v1 1.5.0. */
  traceId?: string;
  requestId?: string;
}

interface RevisionData {
  content?: Partial<PolicyContent>;
  committedExperiment?: string;
  source?: PolicyUpdateSource;
}

const REVISION_EVENTS = new Set(['PolicyCreated', 'PolicyUpdated']);

export const shownRequestId = (event: { traceId?: string; requestId?: string }) =>
  event.traceId ?? event.requestId;

function sourceOf(type: string, data: RevisionData): RevisionSource {
  if (type === 'PolicyCreated') return { kind: 'create' };
  const source = data.source;
  if (source?.kind === 'rollback')
    return {
      kind: 'rollback',
      rolledBackTo: source.rolledBackTo,
      ...(source.reason ? { reason: source.reason } : {}),
    };
  if (data.committedExperiment !== undefined || source?.kind === 'commit') {
    const evidence = source?.kind === 'commit' ? source : undefined;
    return {
      kind: 'commit',
      ...(data.committedExperiment ? { experiment: data.committedExperiment } : {}),
      ...(evidence?.experimentEtag ? { experimentEtag: evidence.experimentEtag } : {}),
      ...(evidence?.reportEtag ? { reportEtag: evidence.reportEtag } : {}),
      ...(evidence?.gates ? { gates: evidence.gates } : {}),
      ...(evidence?.reason ? { reason: evidence.reason } : {}),
      ...(evidence?.annotations ? { annotations: evidence.annotations } : {}),
      ...(evidence?.review ? { review: evidence.review } : {}),
    };
  }
  return { kind: 'update' };
}

/** AIP-162; numbered by the event's version so ids stay stable and ordered. */
export function revisionsOf(policyName: string, events: readonly StoredPolicyEvent[]): Revision[] {
  return events
    .filter((event) => REVISION_EVENTS.has(event.type))
    .map((event) => {
      const data = (event.data ?? {}) as RevisionData;
      const requestId = shownRequestId(event);
      const content = data.content;
      const rules = content?.rules;
      return {
        name: formatRevisionName(policyName, event.version),
        revisionId: String(event.version),
        createTime: event.time,
        actor: event.actor,
        ...(requestId ? { requestId } : {}),
        source: sourceOf(event.type, data),
        etag: etagOf(policyName, event.version),
        ...(typeof content?.displayName === 'string' ? { displayName: content.displayName } : {}),
        ...(typeof content?.description === 'string' ? { description: content.description } : {}),
        rules: Array.isArray(rules) ? rules : null,
      };
    });
}

export function checkRevisionId(field: string, id: unknown): string {
  if (typeof id !== 'string' || !REVISION_ID.test(id)) {
    throw StatusError.invalidArgument(
      `${field} "${String(id ?? '').slice(0, 40)}" is not a revision id.`,
      [{ field, description: 'a revision id: "1", "2", …' }],
    );
  }
  return id;
}

export function revisionContent(revision: Revision): PolicyContent | null {
  if (revision.rules === null) return null;
  const { displayName, description, rules } = revision;
  return {
    ...(displayName !== undefined ? { displayName } : {}),
    ...(description !== undefined ? { description } : {}),
    rules,
  };
}

export function revisionToRestore(
  revisions: readonly Revision[],
  revisionId: string,
): RevisionToRestore | undefined {
  const revision = revisions.find((each) => each.revisionId === revisionId);
  return revision && { revisionId: revision.revisionId, content: revisionContent(revision) };
}

/** The revision's resource stands in for `firewallPolicy`; a display name or description given replaces the revision's. */
export function experimentFromRevision(
  body: Record<string, unknown>,
  revision: RevisionToRestore | undefined,
  policyName: string,
): Record<string, unknown> {
  const { sourceRevision, ...rest } = body;
  const policyInput = (rest.firewallPolicy ?? {}) as Record<string, unknown>;
  if (policyInput.rules !== undefined) {
    throw StatusError.invalidArgument(
      'Give either sourceRevision or firewallPolicy.rules, not both.',
      [
        {
          field: 'experiment.sourceRevision',
          description: 'cannot be given with firewallPolicy.rules',
        },
      ],
    );
  }
  if (!revision)
    throw StatusError.withReason(
      'NOT_FOUND',
      `Revision "${formatRevisionName(policyName, String(sourceRevision))}" not found.`,
      'NOT_FOUND',
      { resource: formatRevisionName(policyName, String(sourceRevision)) },
    );
  if (revision.content === null) {
    throw StatusError.withReason(
      'FAILED_PRECONDITION',
      `Revision ${revision.revisionId} of "${policyName}" was recorded without its rules.`,
      'REVISION_WITHOUT_RULES',
      { resource: policyName, revision: revision.revisionId },
    );
  }
  return { ...rest, firewallPolicy: { ...revision.content, ...policyInput } };
}

/** A commit and a rollback are both stored (and published) as PolicyUpdated. */
export function historyType(type: string, data: unknown): string {
  if (type !== 'PolicyUpdated') return type;
  const kind = sourceOf(type, (data ?? {}) as RevisionData).kind;
  return kind === 'commit' ? 'PolicyCommitted' : kind === 'rollback' ? 'PolicyRolledBack' : type;
}

export function historyDetails(data: unknown): {
  reason?: string;
  annotations?: Record<string, string>;
} {
  const record = (data ?? {}) as { reason?: unknown; source?: PolicyUpdateSource };
  const reason = typeof record.reason === 'string' ? record.reason : record.source?.reason;
  const annotations = record.source?.kind === 'commit' ? record.source.annotations : undefined;
  return {
    ...(typeof reason === 'string' ? { reason } : {}),
    ...(annotations ? { annotations } : {}),
  };
}
