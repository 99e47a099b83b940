import { Clock, PolicyContent, StatusError, formatRevisionName } from '@rollout/contracts';
import { checkEtag, masked, notFound, parseContent, parseMask } from './decide';
import type { PolicyDomainEvent, PolicyState } from './events';

export function decideCreatePolicy(
  state: PolicyState,
  input: unknown,
  clock: Clock,
): PolicyDomainEvent[] {
  if (state.exists)
    throw StatusError.withReason(
      'ALREADY_EXISTS',
      `Firewall policy "${state.name}" already exists.`,
      'ALREADY_EXISTS',
    );
  const content = parseContent(input, 'firewallPolicy');
  return [{ type: 'PolicyCreated', data: { content, time: clock.now().toISOString() } }];
}

export function decideUpdatePolicy(
  state: PolicyState,
  input: Record<string, unknown>,
  updateMask: string | undefined,
  clock: Clock,
): PolicyDomainEvent[] {
  if (!state.exists) throw notFound('Firewall policy', state.name);
  checkEtag('etag', input.etag as string | undefined, state.name, state.version);
  const content = parseContent(
    masked(state.content, input, parseMask(updateMask), ''),
    'firewallPolicy',
  );
  return [{ type: 'PolicyUpdated', data: { content, time: clock.now().toISOString() } }];
}

export function decideDeletePolicy(
  state: PolicyState,
  etag: string | undefined,
  clock: Clock,
): PolicyDomainEvent[] {
  if (!state.exists) throw notFound('Firewall policy', state.name);
  checkEtag('etag', etag, state.name, state.version);
  return [{ type: 'PolicyDeleted', data: { time: clock.now().toISOString() } }];
}

/** null for an event recorded without a rule body. */
export interface RevisionToRestore {
  revisionId: string;
  content: PolicyContent | null;
}

/** As a new revision: history is never rewritten. Guarded as a commit is (etag required). */
export function decideRollback(
  state: PolicyState,
  request: { etag?: string; revisionId: string; revision?: RevisionToRestore; reason?: string },
  clock: Clock,
): PolicyDomainEvent[] {
  if (request.etag === undefined || request.etag === '') {
    throw StatusError.invalidArgument('etag is required to roll back.', [
      { field: 'etag', description: "required: the live policy's current etag" },
    ]);
  }
  if (!state.exists) throw notFound('Firewall policy', state.name);
  checkEtag('etag', request.etag, state.name, state.version);
  if (
    request.reason !== undefined &&
    (typeof request.reason !== 'string' || request.reason.length > 1000)
  )
    throw StatusError.invalidArgument('reason must be a string of at most 1000 characters.', [
      { field: 'reason', description: 'at most 1000 characters' },
    ]);
  const { revision } = request;
  if (!revision) throw notFound('Revision', formatRevisionName(state.name, request.revisionId));
  if (revision.content === null) {
    throw StatusError.withReason(
      'FAILED_PRECONDITION',
      `Revision ${revision.revisionId} of "${state.name}" was recorded without its rules, so it cannot be restored.`,
      'REVISION_WITHOUT_RULES',
      { resource: state.name, revision: revision.revisionId },
    );
  }
  return [
    {
      type: 'PolicyUpdated',
      data: {
        content: revision.content,
        time: clock.now().toISOString(),
        source: {
          kind: 'rollback',
          rolledBackTo: revision.revisionId,
          ...(request.reason ? { reason: request.reason } : {}),
        },
      },
    },
  ];
}
