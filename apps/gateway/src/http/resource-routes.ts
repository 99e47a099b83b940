import {
  formatExperimentName,
  formatExperiments,
  formatParent,
  formatPolicies,
  formatPolicyName,
} from '@rollout/contracts';
import { paramBeforeVerb } from './custom-method-route';

/**
 * The routes of experiment.v1's resources, written by the contracts' names module with a path
 * parameter for each id: an AIP resource's path is its name, so the two cannot drift apart.
 */
const PARAMS = {
  project: ':project',
  location: ':location',
  policy: ':policy',
  experiment: ':experiment',
};

export const LOCATION_ROUTE = `v1/${formatParent(PARAMS)}`;
export const POLICIES_ROUTE = `v1/${formatPolicies(PARAMS)}`;
export const POLICY_ROUTE = `v1/${formatPolicyName(PARAMS)}`;
export const EXPERIMENTS_ROUTE = `v1/${formatExperiments(PARAMS)}`;
export const EXPERIMENT_ROUTE = `v1/${formatExperimentName(PARAMS)}`;

/** A custom method of a policy (AIP-136): `…/firewallPolicies/{policy}:verb`. */
export const policyVerbRoute = (verb: string) =>
  `v1/${formatPolicyName({ ...PARAMS, policy: paramBeforeVerb('policy') })}::${verb}`;

/** A custom method of an experiment (AIP-136): `…/experiments/{experiment}:verb`. */
export const experimentVerbRoute = (verb: string) =>
  `v1/${formatExperimentName({ ...PARAMS, experiment: paramBeforeVerb('experiment') })}::${verb}`;
