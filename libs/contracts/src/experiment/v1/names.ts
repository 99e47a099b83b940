import { StatusError } from '../../status';

/** AIP-122. */
export const RESOURCE_ID = /^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;
const ID = '[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?';
const PARENT = new RegExp(`^projects/(${ID})/locations/(${ID})$`);
const POLICY = new RegExp(`^projects/(${ID})/locations/(${ID})/firewallPolicies/(${ID})$`);
const EXPERIMENT = new RegExp(
  `^(projects/(${ID})/locations/(${ID})/firewallPolicies/(${ID}))/experiments/(${ID})$`,
);
/** The version of the policy's event that made the revision. */
const REVISION_NUMBER = '[1-9][0-9]{0,9}';
export const REVISION_ID = new RegExp(`^${REVISION_NUMBER}$`);
const REVISION = new RegExp(
  `^(projects/(${ID})/locations/(${ID})/firewallPolicies/(${ID}))/revisions/(${REVISION_NUMBER})$`,
);
const PROJECT_OF_NAME = /^projects\/([^/]+)/;
/** NATS splits on dots, the names on slashes. */
const TOKEN = '[^/.\\s]+';
export const POLICY_KEY_ID = new RegExp(`^${TOKEN}$`);
const POLICY_KEY = new RegExp(`^(${TOKEN})\\.(${TOKEN})\\.(${TOKEN})$`);
const KEY_PARENT = new RegExp(`^projects/(${TOKEN})/locations/(${TOKEN})$`);

export interface ParentName {
  project: string;
  location: string;
}
export interface PolicyName extends ParentName {
  name: string;
  policy: string;
}
export type PolicyIds = ParentName & { policy: string };
export interface ExperimentName extends PolicyName {
  policyName: string;
  experiment: string;
}
export interface RevisionName extends PolicyName {
  policyName: string;
  revisionId: string;
}

export const formatParent = ({ project, location }: ParentName) =>
  `projects/${project}/locations/${location}`;
export const formatPolicies = (ref: ParentName) => `${formatParent(ref)}/firewallPolicies`;
export const formatPolicyName = (ref: ParentName & { policy: string }) =>
  `${formatPolicies(ref)}/${ref.policy}`;
export const formatExperiments = (ref: ParentName & { policy: string }) =>
  `${formatPolicyName(ref)}/experiments`;
export const formatExperimentName = (ref: ParentName & { policy: string; experiment: string }) =>
  `${formatExperiments(ref)}/${ref.experiment}`;
export const formatRevisionName = (policyName: string, revisionId: string | number) =>
  `${policyName}/revisions/${revisionId}`;

export function parseParent(name: unknown): ParentName | undefined {
  const m = typeof name === 'string' ? PARENT.exec(name) : null;
  return m ? { project: m[1], location: m[2] } : undefined;
}

export function parsePolicyName(name: unknown): PolicyName | undefined {
  const m = typeof name === 'string' ? POLICY.exec(name) : null;
  return m ? { name: m[0], project: m[1], location: m[2], policy: m[3] } : undefined;
}

export function parseExperimentName(name: unknown): ExperimentName | undefined {
  const m = typeof name === 'string' ? EXPERIMENT.exec(name) : null;
  return m
    ? {
        name: m[0],
        policyName: m[1],
        project: m[2],
        location: m[3],
        policy: m[4],
        experiment: m[5],
      }
    : undefined;
}

/** Any id, whether or not the rest is a valid name: a tenancy check reads it before parsing. */
export function projectOfName(name: unknown): string | undefined {
  return (typeof name === 'string' ? PROJECT_OF_NAME.exec(name) : null)?.[1];
}

/** The tail of a policy's traffic subjects, and the evaluator's key for it. */
export const formatPolicyKey = (ref: PolicyIds) => `${ref.project}.${ref.location}.${ref.policy}`;

/** Any three tokens, not only AIP-122 ids: a producer's typo'd id is recorded, not dropped. */
export function parsePolicyKey(key: unknown): PolicyIds | undefined {
  const m = typeof key === 'string' ? POLICY_KEY.exec(key) : null;
  return m ? { project: m[1], location: m[2], policy: m[3] } : undefined;
}

/** Subject tokens rather than AIP-122 ids, as dot-form keys have them. */
export function parseKeyParent(name: unknown): ParentName | undefined {
  const m = typeof name === 'string' ? KEY_PARENT.exec(name) : null;
  return m ? { project: m[1], location: m[2] } : undefined;
}

export function parseRevisionName(name: unknown): RevisionName | undefined {
  const m = typeof name === 'string' ? REVISION.exec(name) : null;
  return m
    ? {
        name: m[0],
        policyName: m[1],
        project: m[2],
        location: m[3],
        policy: m[4],
        revisionId: m[5],
      }
    : undefined;
}

const PATTERNS = {
  parent: 'projects/{project}/locations/{location}',
  policy: 'projects/{project}/locations/{location}/firewallPolicies/{firewallPolicy}',
  experiment:
    'projects/{project}/locations/{location}/firewallPolicies/{firewallPolicy}/experiments/{experiment}',
  revision:
    'projects/{project}/locations/{location}/firewallPolicies/{firewallPolicy}/revisions/{revisionId}',
};

function invalidName(kind: keyof typeof PATTERNS, field: string, value: unknown): StatusError {
  return StatusError.invalidArgument(
    `${field} "${String(value ?? '').slice(0, 200)}" is not a valid ${kind === 'parent' ? 'parent' : `${kind} name`}.`,
    [
      {
        field,
        description: `must be ${PATTERNS[kind]}, each id matching ${RESOURCE_ID.source} (AIP-122)${kind === 'revision' ? ', the revision id a number from 1' : ''}`,
      },
    ],
  );
}

const required =
  <T>(kind: keyof typeof PATTERNS, parse: (name: unknown) => T | undefined, defaultField: string) =>
  (name: unknown, field = defaultField): T => {
    const parsed = parse(name);
    if (!parsed) throw invalidName(kind, field, name);
    return parsed;
  };

export const requireParent = required('parent', parseParent, 'parent');
export const requirePolicyName = required('policy', parsePolicyName, 'name');
export const requireExperimentName = required('experiment', parseExperimentName, 'name');
export const requireRevisionName = required('revision', parseRevisionName, 'name');

export function requireResourceId(field: string, id: unknown): string {
  if (typeof id === 'string' && RESOURCE_ID.test(id)) return id;
  throw StatusError.invalidArgument(
    `${field} "${String(id ?? '').slice(0, 200)}" is not a valid resource id.`,
    [{ field, description: `must match ${RESOURCE_ID.source} (AIP-122)` }],
  );
}
