import { StatusError } from '@rollout/contracts';

/** Resource names of experiment.v1 as the evaluator needs them (AIP-122 ids). */
const ID = '[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?';
const POLICY = new RegExp(`^projects/(${ID})/locations/(${ID})/firewallPolicies/(${ID})$`);
const EXPERIMENT = new RegExp(
  `^(projects/(${ID})/locations/(${ID})/firewallPolicies/(${ID}))/experiments/(${ID})$`,
);

export interface PolicyName {
  name: string;
  project: string;
  location: string;
  policy: string;
}

export interface ExperimentName extends PolicyName {
  /** The live policy's name. */
  policyName: string;
  experiment: string;
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

/** An experiment's name from a request, or INVALID_ARGUMENT naming the request's `field`. */
export function requireExperimentName(name: unknown, field: string): ExperimentName {
  const parsed = parseExperimentName(name);
  if (!parsed) {
    throw StatusError.invalidArgument(
      `"${String(name ?? '').slice(0, 200)}" is not an experiment name.`,
      [
        {
          field,
          description:
            'projects/{project}/locations/{location}/firewallPolicies/{firewallPolicy}/experiments/{experiment}',
        },
      ],
    );
  }
  return parsed;
}

/** `{project}.{location}.{firewallPolicy}`: the tail of a traffic subject naming this policy. */
export const trafficKey = (policy: PolicyName) =>
  `${policy.project}.${policy.location}.${policy.policy}`;
