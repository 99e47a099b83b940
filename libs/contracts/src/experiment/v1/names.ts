import { StatusError } from '../../status';

/**
 * The resource names of experiment.v1, parsed and formatted in one place: every service, tool
 * and domain reads and writes `projects/{project}/locations/{location}/firewallPolicies/
 * {firewallPolicy}[/experiments/{experiment}]` through this module.
 */

/** An AIP-122 resource id. */
export const RESOURCE_ID = /^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;
const ID = '[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?';
const PARENT = new RegExp(`^projects/(${ID})/locations/(${ID})$`);
const POLICY = new RegExp(`^projects/(${ID})/locations/(${ID})/firewallPolicies/(${ID})$`);
const EXPERIMENT = new RegExp(
  `^(projects/(${ID})/locations/(${ID})/firewallPolicies/(${ID}))/experiments/(${ID})$`,
);
/** A revision id is the version of the policy's event it was made by: 1, 2, … */
const REVISION_NUMBER = '[1-9][0-9]{0,9}';
export const REVISION_ID = new RegExp(`^${REVISION_NUMBER}$`);
const REVISION = new RegExp(
  `^(projects/(${ID})/locations/(${ID})/firewallPolicies/(${ID}))/revisions/(${REVISION_NUMBER})$`,
);
/** Any id of a name's `projects/{project}` segment: a tenancy check reads it before the name is parsed. */
const PROJECT_OF_NAME = /^projects\/([^/]+)/;
/** A subject token: no dot, slash or space (NATS splits on dots; the names module on slashes). */
const TOKEN = '[^/.\\s]+';
/** A policy id as the dot form takes it: one subject token. */
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
/** A policy's ids, without its name: the parts of the dot form. */
export type PolicyIds = ParentName & { policy: string };
export interface ExperimentName extends PolicyName {
  /** The live policy's name. */
  policyName: string;
  experiment: string;
}
export interface RevisionName extends PolicyName {
  /** The live policy's name. */
  policyName: string;
  revisionId: string;
}

export const formatParent = ({ project, location }: ParentName) =>
  `projects/${project}/locations/${location}`;
/** The collection of a parent's policies (the list and create path). */
export const formatPolicies = (ref: ParentName) => `${formatParent(ref)}/firewallPolicies`;
export const formatPolicyName = (ref: ParentName & { policy: string }) =>
  `${formatPolicies(ref)}/${ref.policy}`;
/** The collection of a policy's experiments. */
export const formatExperiments = (ref: ParentName & { policy: string }) =>
  `${formatPolicyName(ref)}/experiments`;
export const formatExperimentName = (ref: ParentName & { policy: string; experiment: string }) =>
  `${formatExperiments(ref)}/${ref.experiment}`;
/** A revision of the live policy named `policyName`. */
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

/**
 * The project a resource name is under (`projects/{project}` or `projects/{project}/…`), of any
 * kind of resource and whether or not the rest is a valid name: what a tenancy check reads
 * before, or without, parsing the name itself, so it takes any id the name carries.
 */
export function projectOfName(name: unknown): string | undefined {
  return (typeof name === 'string' ? PROJECT_OF_NAME.exec(name) : null)?.[1];
}

/**
 * The dot form `{project}.{location}.{firewallPolicy}` of a policy's ids: the tail of its traffic
 * subjects, and how the evaluator keys a live policy and a dead letter.
 */
export const formatPolicyKey = (ref: PolicyIds) => `${ref.project}.${ref.location}.${ref.policy}`;

/**
 * The ids of a dot-form key. Its tokens are a subject's, as a producer sent them (a typo'd id is
 * recorded, not dropped), so any three non-empty tokens are taken, not only AIP-122 ids.
 */
export function parsePolicyKey(key: unknown): PolicyIds | undefined {
  const m = typeof key === 'string' ? POLICY_KEY.exec(key) : null;
  return m ? { project: m[1], location: m[2], policy: m[3] } : undefined;
}

/** A parent whose ids are subject tokens rather than AIP-122 ids: what a dot-form key's records are asked by. */
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

/** A parser that refuses what its parse does not take: INVALID_ARGUMENT naming the request's `field`. */
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

/** A request's resource id, or INVALID_ARGUMENT naming the request's `field`. */
export function requireResourceId(field: string, id: unknown): string {
  if (typeof id === 'string' && RESOURCE_ID.test(id)) return id;
  throw StatusError.invalidArgument(
    `${field} "${String(id ?? '').slice(0, 200)}" is not a valid resource id.`,
    [{ field, description: `must match ${RESOURCE_ID.source} (AIP-122)` }],
  );
}
