import {
  CONTRACT_HEADERS,
  EXPERIMENT_V1,
  contractPackageOf,
  definePackage,
  deprecationOverrideEnv,
  formatContractVersion,
  parseClientFeatures,
  parseContractVersion,
} from '@rollout/contracts';

/** The client-identity and deprecation helpers the contracts lib gives services (see docs/contracts.md). */
describe('contract headers and deprecation overrides', () => {
  it('round-trips Contract-Version and refuses what is not `<package>/<semver>`', () => {
    expect(CONTRACT_HEADERS.contractVersion).toBe('Contract-Version');
    expect(parseContractVersion(formatContractVersion(EXPERIMENT_V1))).toEqual(EXPERIMENT_V1);
    expect(parseContractVersion(' traffic.v2alpha/2.0.0 ')).toEqual({
      name: 'traffic.v2alpha',
      version: '2.0.0',
    });
    for (const bad of [undefined, '', 'experiment.v1', 'experiment/1.0.0', 'experiment.v1/1.0']) {
      expect(parseContractVersion(bad)).toBeUndefined();
    }
  });

  it('reads Client-Features as reverse-DNS names and drops anything else', () => {
    expect(
      parseClientFeatures('dev.policy-rollout.traffic.batch, com.acme.widget,  junk, ,x'),
    ).toEqual(['dev.policy-rollout.traffic.batch', 'com.acme.widget']);
    expect(parseClientFeatures(undefined)).toEqual([]);
  });

  it('names the runtime override of a disallowed-by-default deprecation after the package and target', () => {
    expect(deprecationOverrideEnv('experiment.v1', 'FirewallRule.description')).toBe(
      'CONTRACTS_ALLOW_DEPRECATED_EXPERIMENT_V1_FIREWALLRULE_DESCRIPTION',
    );
  });

  it('reports a package as a service speaks it: name, version and features', () => {
    const pkg = definePackage({
      name: 'widget.v1',
      version: '1.2.0',
      stability: 'stable',
      requests: [],
      replies: [],
      events: [],
      resources: [],
      features: ['dev.policy-rollout.widget.batch'],
    });
    expect(contractPackageOf(pkg)).toEqual({
      name: 'widget.v1',
      version: '1.2.0',
      features: ['dev.policy-rollout.widget.batch'],
    });
    expect(contractPackageOf({ ...pkg, features: [] })).toEqual({
      name: 'widget.v1',
      version: '1.2.0',
    });
  });
});
