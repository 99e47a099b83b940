import { experimentStateKey, policyStateKey, resourceOfStateKey } from './messages';

describe('EXPERIMENT_STATE keys', () => {
  it('name the resource they hold, both ways', () => {
    expect(resourceOfStateKey(policyStateKey('acme', 'global', 'web'))).toEqual({
      kind: 'policy',
      name: 'projects/acme/locations/global/firewallPolicies/web',
    });
    expect(resourceOfStateKey(experimentStateKey('acme', 'global', 'web', 'tighten'))).toEqual({
      kind: 'experiment',
      name: 'projects/acme/locations/global/firewallPolicies/web/experiments/tighten',
    });
  });

  it('are told apart from any other key', () => {
    for (const key of [
      'experiment.v1.relay-position',
      'experiment.v2.policy.a.b.c',
      'experiment.v1.policy.a.b',
      'experiment.v1.experiment.a.b.c',
      'other',
    ]) {
      expect(resourceOfStateKey(key)).toBeUndefined();
    }
  });
});
