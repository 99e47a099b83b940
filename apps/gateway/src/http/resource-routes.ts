import {
  formatExperimentName,
  formatExperiments,
  formatParent,
  formatPolicies,
  formatPolicyName,
} from '@rollout/contracts';
import { paramBeforeVerb } from './custom-method-route';

/** Written with the contracts' names module: an AIP resource's path is its name, so the two cannot drift. */
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

export const policyVerbRoute = (verb: string) =>
  `v1/${formatPolicyName({ ...PARAMS, policy: paramBeforeVerb('policy') })}::${verb}`;

export const experimentVerbRoute = (verb: string) =>
  `v1/${formatExperimentName({ ...PARAMS, experiment: paramBeforeVerb('experiment') })}::${verb}`;
