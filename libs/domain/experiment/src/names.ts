import { StatusError } from '@rollout/contracts';

/** AIP-122 resource ids. */
export const RESOURCE_ID = /^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;

export interface PolicyName {
  project: string;
  location: string;
  policy: string;
  name: string;
}
export interface ExperimentName extends PolicyName {
  experiment: string;
  policyName: string;
}

function invalid(field: string, value: string): StatusError {
  return StatusError.invalidArgument(
    `${field} "${value.slice(0, 100)}" is not a valid resource name.`,
    [{ field, description: 'ids must match ^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$ (AIP-122)' }],
  );
}

export function checkId(field: string, id: unknown): string {
  if (typeof id !== 'string' || !RESOURCE_ID.test(id)) throw invalid(field, String(id ?? ''));
  return id;
}

export function parseParent(
  parent: string,
  field = 'parent',
): { project: string; location: string } {
  const m = /^projects\/([^/]+)\/locations\/([^/]+)$/.exec(parent ?? '');
  if (!m || !RESOURCE_ID.test(m[1]) || !RESOURCE_ID.test(m[2])) throw invalid(field, parent ?? '');
  return { project: m[1], location: m[2] };
}

export function parsePolicyName(name: string, field = 'name'): PolicyName {
  const m = /^projects\/([^/]+)\/locations\/([^/]+)\/firewallPolicies\/([^/]+)$/.exec(name ?? '');
  if (!m || ![m[1], m[2], m[3]].every((id) => RESOURCE_ID.test(id)))
    throw invalid(field, name ?? '');
  return { project: m[1], location: m[2], policy: m[3], name };
}

export function parseExperimentName(name: string, field = 'name'): ExperimentName {
  const m =
    /^(projects\/([^/]+)\/locations\/([^/]+)\/firewallPolicies\/([^/]+))\/experiments\/([^/]+)$/.exec(
      name ?? '',
    );
  if (!m || ![m[2], m[3], m[4], m[5]].every((id) => RESOURCE_ID.test(id)))
    throw invalid(field, name ?? '');
  return { policyName: m[1], name, project: m[2], location: m[3], policy: m[4], experiment: m[5] };
}
