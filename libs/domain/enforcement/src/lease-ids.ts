import {
  ENFORCEMENT_DENIED_REASON,
  ENFORCEMENT_FILTER_FAILED_REASON,
  ERROR_DOMAIN,
  LeaseOrigin,
  RESOURCE_ID,
  StatusError,
} from '@rollout/contracts';
import type { ChainDecision } from './chain-decision';
import type { EnforcementContext } from './model';

const PROJECT = /^[A-Za-z0-9][A-Za-z0-9._@:-]{0,127}$/;
const LOOKUP_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Letters, digits, . _ @ : - */
export function checkProject(project: unknown): string {
  if (typeof project !== 'string' || !PROJECT.test(project)) {
    throw StatusError.invalidArgument(
      'project must be a project id (letters, digits, . _ @ : -).',
      [{ field: 'project', description: 'not a project id' }],
    );
  }
  return project;
}

/** Blazar's project ids are Keystone's: any text, but bounded. */
export function blazarProject(context: EnforcementContext): string {
  if (context.projectId.length > 255)
    throw StatusError.invalidArgument('context.project_id is too long.', [
      { field: 'context.project_id', description: 'at most 255 characters' },
    ]);
  return context.projectId;
}

export function checkActor(actor: unknown): string {
  if (typeof actor !== 'string' || actor === '' || actor.length > 255)
    throw StatusError.invalidArgument('actor is required.', [
      { field: 'actor', description: 'required' },
    ]);
  return actor;
}

/** The id of a new lease: the client's when it names one (AIP-122), else `generated`. */
export function newLeaseId(requested: unknown, generated: () => string): string {
  if (requested === undefined || requested === null || requested === '') return generated();
  if (typeof requested === 'string' && RESOURCE_ID.test(requested)) return requested;
  throw StatusError.invalidArgument(`leaseId must match ${RESOURCE_ID.source} (AIP-122).`, [
    {
      field: 'leaseId',
      description: 'lower-case letters, digits and hyphens, starting with a letter, at most 63',
    },
  ]);
}

/** Whether a lease id could name a lease at all: anything else is simply not found. */
export function isLookupId(leaseId: unknown): leaseId is string {
  return typeof leaseId === 'string' && LOOKUP_ID.test(leaseId);
}

/** Its name (or id), which every Blazar call carries alike. */
export function blazarLeaseId(
  name: string | undefined,
  id: string | undefined,
  requestId: string,
): string {
  return `blazar:${name ?? id ?? requestId}`;
}

export function adapterLeaseId(lease: {
  origin: LeaseOrigin;
  uid: string;
  blazarName: string | null;
  blazarId: string | null;
}): string {
  return lease.origin === 'BLAZAR'
    ? blazarLeaseId(lease.blazarName ?? undefined, lease.blazarId ?? undefined, lease.uid)
    : lease.uid;
}

export function leaseNotFound(project: string, leaseId: unknown): StatusError {
  return StatusError.withReason(
    'NOT_FOUND',
    `Lease ${String(leaseId)} not found in project ${project}.`,
    'LEASE_NOT_FOUND',
    { project, lease: String(leaseId) },
  );
}

/** A filter that could not decide answers ENFORCEMENT_FILTER_FAILED with its `status_on_error`. */
export function deniedError(
  decision: ChainDecision,
  project: string,
  leaseId: string,
): StatusError {
  const denial = decision.denial!;
  return new StatusError(denial.failure?.status ?? 'PERMISSION_DENIED', denial.message, [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: denial.failure ? ENFORCEMENT_FILTER_FAILED_REASON : ENFORCEMENT_DENIED_REASON,
      domain: ERROR_DOMAIN,
      metadata: { filter: denial.filter, hook: decision.hook, project, lease: leaseId },
    },
  ]);
}
