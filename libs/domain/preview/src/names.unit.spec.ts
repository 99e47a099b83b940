import { StatusError } from '@rollout/contracts';
import { requireExperimentName } from './names';

describe('requireExperimentName', () => {
  const name = 'projects/acme/locations/global/firewallPolicies/web/experiments/lock';

  it('gives the parts of an experiment name', () => {
    expect(requireExperimentName(name, 'name')).toEqual({
      name,
      policyName: 'projects/acme/locations/global/firewallPolicies/web',
      project: 'acme',
      location: 'global',
      policy: 'web',
      experiment: 'lock',
    });
  });

  it("refuses anything else as INVALID_ARGUMENT on the request's field", () => {
    for (const bad of [
      undefined,
      42,
      'projects/acme/locations/global/firewallPolicies/web',
      `${name}/x`,
    ]) {
      let thrown: unknown;
      try {
        requireExperimentName(bad, 'parent');
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(StatusError);
      expect((thrown as StatusError).toStatus()).toMatchObject({
        status: 'INVALID_ARGUMENT',
        details: [
          expect.objectContaining({
            fieldViolations: [expect.objectContaining({ field: 'parent' })],
          }),
        ],
      });
    }
  });
});
