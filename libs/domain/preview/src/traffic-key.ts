import type { PolicyName } from '@rollout/contracts';

/** `{project}.{location}.{firewallPolicy}`: the tail of a traffic subject naming this policy. */
export const trafficKey = (policy: Pick<PolicyName, 'project' | 'location' | 'policy'>) =>
  `${policy.project}.${policy.location}.${policy.policy}`;
