import type { FirewallRule } from '@rollout/contracts';
import { CliError } from './gateway';
import { formatPolicyFile, normalisePolicy, parsePolicyFile } from './policy-file';

const NAME = 'projects/acme/locations/global/firewallPolicies/edge';

const messy: FirewallRule[] = [
  {
    priority: 200,
    direction: 'INGRESS',
    action: 'deny',
    match: {
      srcIpRanges: ['10.0.0.0/8', '0.0.0.0/0'],
      layer4Configs: [{ ipProtocol: '6', ports: ['443', '22'] }],
    },
    disabled: false,
    targetTags: [],
    description: '',
  },
  {
    priority: 100,
    direction: 'INGRESS',
    action: 'allow',
    match: {
      srcIpRanges: ['0.0.0.0/0'],
      layer4Configs: [
        { ipProtocol: 'TCP', ports: ['8000-8080'] },
        { ipProtocol: 'udp' },
        { ipProtocol: 'tcp', ports: ['443', '443'] },
      ],
    },
  },
];

function refusal(text: string): string {
  try {
    parsePolicyFile(text, 'edge.yaml');
  } catch (error) {
    if (error instanceof CliError) return error.message;
    throw error;
  }
  throw new Error('the file was accepted');
}

describe('policy files', () => {
  it('normalises: rules by priority, protocol numbers as names, one entry per protocol, sets sorted, defaults absent', () => {
    expect(normalisePolicy({ displayName: 'edge', description: '', rules: messy })).toEqual({
      displayName: 'edge',
      rules: [
        {
          priority: 100,
          direction: 'INGRESS',
          action: 'allow',
          match: {
            srcIpRanges: ['0.0.0.0/0'],
            layer4Configs: [
              { ipProtocol: 'tcp', ports: ['443', '8000-8080'] },
              { ipProtocol: 'udp' },
            ],
          },
        },
        {
          priority: 200,
          direction: 'INGRESS',
          action: 'deny',
          match: {
            srcIpRanges: ['0.0.0.0/0', '10.0.0.0/8'],
            layer4Configs: [{ ipProtocol: 'tcp', ports: ['22', '443'] }],
          },
        },
      ],
    });
  });

  it('round-trips: an exported file reads back as the same policy, in YAML and in JSON, and exports to the same text', () => {
    const policy = normalisePolicy({ displayName: 'edge', description: 'the edge', rules: messy });
    for (const format of ['yaml', 'json'] as const) {
      const text = formatPolicyFile(NAME, policy, format);
      const read = parsePolicyFile(text, `edge.${format}`);
      expect(read).toEqual({ name: NAME, policy });
      expect(formatPolicyFile(NAME, read.policy, format)).toBe(text);
    }
    expect(formatPolicyFile(NAME, policy, 'yaml')).toMatch(/^kind: FirewallPolicy\nname: projects/);
  });

  it("keeps source secure tags: sorted and deduplicated by name, case kept, GCP's output-only state dropped, round-tripped", () => {
    const text = [
      'kind: FirewallPolicy',
      'rules:',
      '  - priority: 100',
      '    direction: INGRESS',
      '    action: allow',
      '    match:',
      '      srcSecureTags: [{ name: "k8s:app=Web" }, { name: tagValues/123, state: EFFECTIVE }, { name: "k8s:app=Web" }]',
    ].join('\n');
    const { policy } = parsePolicyFile(text, 'edge.yaml');
    const normalised = normalisePolicy(policy);
    expect(normalised.rules[0].match.srcSecureTags).toEqual([
      { name: 'k8s:app=Web' },
      { name: 'tagValues/123' },
    ]);
    const exported = formatPolicyFile(NAME, normalised, 'yaml');
    expect(normalisePolicy(parsePolicyFile(exported, 'edge.yaml').policy)).toEqual(normalised);
    expect(
      refusal(
        text
          .replace('state: EFFECTIVE', 'colour: blue')
          .replace('{ name: "k8s:app=Web" }]', '"web"]'),
      ),
    ).toBe(
      'edge.yaml is not a valid policy file: rules[0].match.srcSecureTags[1].colour: unknown field; ' +
        'rules[0].match.srcSecureTags[2]: must be a mapping with name (tagValues/… or a workload label)',
    );
  });

  it('refuses a file that is not a policy, saying what a policy file is', () => {
    expect(refusal('just: [a, mapping')).toMatch(/^edge.yaml is not YAML or JSON/);
    expect(refusal('- 1\n- 2\n')).toBe(
      'edge.yaml is not a firewall policy: expected a mapping with kind: FirewallPolicy and rules (rollout export writes one).',
    );
    expect(refusal('kind: Deployment\nspec: {}\n')).toMatch(/is not a firewall policy/);
  });

  it('refuses unknown fields and wrong types, naming each path, so a typo never drops a condition silently', () => {
    const text = [
      'kind: FirewallPolicy',
      'colour: blue',
      'rules:',
      '  - priority: 100',
      '    direction: INGRESS',
      '    action: allow',
      '    match: { srcIPRanges: [0.0.0.0/0], layer4Configs: [{ ipProtocol: tcp, port: ["22"] }] }',
      '  - priority: 200',
      '    direction: sideways',
      '    action: allow',
      '    match: {}',
    ].join('\n');
    expect(refusal(text)).toBe(
      'edge.yaml is not a valid policy file: colour: unknown field; rules[0].match.srcIPRanges: unknown field; ' +
        'rules[0].match.layer4Configs[0].port: unknown field; rules[1].direction: required, INGRESS or EGRESS',
    );
  });

  it('refuses two rules of one priority: the policy is keyed by priority', () => {
    const rule = (action: string) =>
      `  - { priority: 100, direction: INGRESS, action: ${action}, match: { srcIpRanges: [10.0.0.0/8] } }`;
    expect(
      refusal(['kind: FirewallPolicy', 'rules:', rule('allow'), rule('deny')].join('\n')),
    ).toBe(
      'edge.yaml is not a valid policy file: rules[1].priority: 100 is also the priority of rules[0]',
    );
  });

  it('refuses a document of aliases that would expand without bound', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x]',
      ...'bcdefghijk'
        .split('')
        .map((l, i) => `${l}: &${l} [${Array(9).fill(`*${'abcdefghijk'[i]}`).join(', ')}]`),
    ].join('\n');
    expect(refusal(bomb)).toMatch(/is not YAML or JSON/);
  });
});
