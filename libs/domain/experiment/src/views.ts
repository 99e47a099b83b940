import type { FirewallPolicy, FirewallPolicyExperiment } from '@rollout/contracts';
import type { ExperimentState, PolicyState } from './events';
import { etagOf } from './evolve';

export function policyView(state: PolicyState): FirewallPolicy {
  return {
    name: state.name,
    ...state.content,
    etag: etagOf(state.name, state.version),
    createTime: state.createTime!,
    updateTime: state.updateTime!,
  };
}

export function experimentView(state: ExperimentState): FirewallPolicyExperiment {
  return {
    name: state.name,
    firewallPolicy: { name: state.policyName!, ...state.content },
    ...(state.preview ? { previewMetadata: state.preview } : {}),
    annotations: state.annotations,
    ...state.conditions,
    etag: etagOf(state.name, state.version),
    createTime: state.createTime!,
    updateTime: state.updateTime!,
  };
}
