import type { Status } from '@rollout/contracts';
import { CliError, describeStatus } from './gateway';
import { policyName } from './policy-api';

describe('the gateway, as the command line reads it', () => {
  it('takes a policy by its full name, or by its id in a project', () => {
    const full = 'projects/acme/locations/global/firewallPolicies/edge';
    expect(policyName(full)).toBe(full);
    expect(policyName('edge', 'acme')).toBe(full);
    expect(policyName('edge', 'acme', 'eu')).toBe(
      'projects/acme/locations/eu/firewallPolicies/edge',
    );
    expect(() => policyName('edge')).toThrow(
      'which project is "edge" in? Give --project (or ROLLOUT_PROJECT).',
    );
    expect(() => policyName('Edge!', 'acme')).toThrow(CliError);
  });

  it("says a refusal in one line: the gateway's message, each field and each unmet precondition", () => {
    const status: Status = {
      code: 400,
      status: 'FAILED_PRECONDITION',
      message: '1 of 2 readiness gates do not hold.',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.BadRequest',
          fieldViolations: [
            { field: 'rules[0].match.srcIpRanges[0]', description: 'must be a CIDR' },
          ],
        },
        {
          '@type': 'type.googleapis.com/google.rpc.PreconditionFailure',
          violations: [
            {
              type: 'READINESS_GATE',
              subject: 'readinessGates[1].minEvaluated',
              description: '12 events evaluated; at least 100 required.',
            },
          ],
        },
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'GATES_NOT_READY',
          domain: 'policy-rollout',
        },
      ],
    };
    expect(describeStatus(status)).toBe(
      '1 of 2 readiness gates do not hold. rules[0].match.srcIpRanges[0]: must be a CIDR; readinessGates[1].minEvaluated: 12 events evaluated; at least 100 required.',
    );
    expect(new CliError('x', status).reason).toBe('GATES_NOT_READY');
  });
});
