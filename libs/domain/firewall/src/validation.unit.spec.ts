import { isIpRange, validatePolicyContent } from './validation';

const rule = (extra: Record<string, unknown> = {}) => ({
  priority: 1000,
  direction: 'INGRESS',
  action: 'allow',
  match: {
    srcIpRanges: ['10.0.0.0/8'],
    layer4Configs: [{ ipProtocol: 'tcp', ports: ['443', '8000-8080'] }],
  },
  ...extra,
});

describe('validatePolicyContent', () => {
  it('accepts a well-formed policy and ignores output-only fields', () => {
    const { content, violations } = validatePolicyContent(
      {
        name: 'x',
        etag: 'e',
        displayName: 'web',
        rules: [
          rule(),
          rule({
            priority: 2000,
            direction: 'EGRESS',
            action: 'deny',
            match: { destIpRanges: ['2001:db8::/32'] },
          }),
        ],
      },
      'firewallPolicy',
    );
    expect(violations).toEqual([]);
    expect(content?.rules).toHaveLength(2);
    expect(content).not.toHaveProperty('etag');
  });

  it('accepts the no-op policy (no rules)', () => {
    expect(validatePolicyContent({}, 'firewallPolicy')).toEqual({
      content: { rules: [] },
      violations: [],
    });
  });

  it('rejects two rules with the same priority, naming the second', () => {
    const { violations } = validatePolicyContent({ rules: [rule(), rule()] }, 'firewallPolicy');
    expect(violations).toEqual([
      {
        field: 'firewallPolicy.rules[1].priority',
        description: 'priority 1000 is already used by rules[0]',
      },
    ]);
  });

  it.each([
    ['priority', rule({ priority: 70000 }), 'firewallPolicy.rules[0].priority'],
    ['direction', rule({ direction: 'IN' }), 'firewallPolicy.rules[0].direction'],
    ['action', rule({ action: 'drop' }), 'firewallPolicy.rules[0].action'],
    [
      'CIDR',
      rule({ match: { srcIpRanges: ['10.0.0.0/33'] } }),
      'firewallPolicy.rules[0].match.srcIpRanges[0]',
    ],
    [
      'protocol',
      rule({ match: { layer4Configs: [{ ipProtocol: 'gre' }] } }),
      'firewallPolicy.rules[0].match.layer4Configs[0].ipProtocol',
    ],
    [
      'ports on icmp',
      rule({ match: { layer4Configs: [{ ipProtocol: 'icmp', ports: ['1'] }] } }),
      'firewallPolicy.rules[0].match.layer4Configs[0].ports',
    ],
    [
      'port range',
      rule({ match: { layer4Configs: [{ ipProtocol: 'udp', ports: ['90-80'] }] } }),
      'firewallPolicy.rules[0].match.layer4Configs[0].ports[0]',
    ],
    ['unknown field', rule({ colour: 'red' }), 'firewallPolicy.rules[0].colour'],
    [
      'source tag',
      rule({ match: { srcSecureTags: [{ name: 'k8s:app = web' }] } }),
      'firewallPolicy.rules[0].match.srcSecureTags[0].name',
    ],
    [
      'source tag field',
      rule({ match: { srcSecureTags: [{ name: 'tagValues/1', colour: 'red' }] } }),
      'firewallPolicy.rules[0].match.srcSecureTags[0].colour',
    ],
  ])('names the field of a bad %s', (_, bad, field) => {
    const { violations } = validatePolicyContent({ rules: [bad] }, 'firewallPolicy');
    expect(violations.map((v) => v.field)).toEqual([field]);
  });
});

describe('source secure tags', () => {
  it("keeps tag values and workload labels, and drops GCP's output-only state", () => {
    const { content, violations } = validatePolicyContent(
      {
        rules: [
          rule({
            match: {
              srcSecureTags: [
                { name: 'tagValues/281484836404786', state: 'EFFECTIVE' },
                { name: 'k8s:app=web' },
              ],
            },
          }),
        ],
      },
      'firewallPolicy',
    );
    expect(violations).toEqual([]);
    expect(content?.rules[0].match.srcSecureTags).toEqual([
      { name: 'tagValues/281484836404786' },
      { name: 'k8s:app=web' },
    ]);
  });
});

describe('isIpRange', () => {
  it.each(['192.0.2.1', '0.0.0.0/0', '10.0.0.0/8', '::/0', '2001:db8::1', 'fe80::/10'])(
    'accepts %s',
    (v) => {
      expect(isIpRange(v)).toBe(true);
    },
  );
  it.each([
    '',
    '10.0.0.0/',
    '10.0.0/8',
    '1.2.3.4/33',
    '::/129',
    '10.0.0.0/8/8',
    'host.example',
    "1.1.1.1' OR 1=1",
  ])('rejects %s', (v) => expect(isIpRange(v)).toBe(false));
});
