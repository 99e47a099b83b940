import { FirewallRule } from '../model';
import { compilePolicy, Connection, connectionProblem, parseConnection, Verdict } from '.';

/** Given these rules, when this connection arrives, then this verdict: the examples below read that way. */
const rule = (priority: number, extra: Partial<FirewallRule> = {}): FirewallRule => ({
  priority,
  direction: 'INGRESS',
  action: 'allow',
  match: {},
  ...extra,
});

const connection = (extra: Partial<Connection> = {}): Connection => ({
  direction: 'INGRESS',
  srcIp: '10.1.2.3',
  destIp: '192.168.0.10',
  protocol: 'tcp',
  destPort: 443,
  ...extra,
});

const decidedBy = (priority: number, action: 'allow' | 'deny' = 'allow'): Verdict => ({
  action,
  rulePriority: priority,
  implied: false,
});
const IMPLIED_DENY: Verdict = { action: 'deny', rulePriority: null, implied: true };
const IMPLIED_ALLOW: Verdict = { action: 'allow', rulePriority: null, implied: true };

const verdict = (rules: FirewallRule[], c: Partial<Connection> = {}) =>
  compilePolicy({ rules }).evaluate(connection(c));

describe('implied rules', () => {
  it('denies ingress and allows egress when no rule matches', () => {
    const rules = [rule(10, { match: { srcIpRanges: ['172.16.0.0/12'] } })];
    expect(verdict(rules)).toEqual(IMPLIED_DENY);
    expect(verdict(rules, { direction: 'EGRESS' })).toEqual(IMPLIED_ALLOW);
  });

  it('applies them to a policy with no rules (the no-op policy) and to an absent rule list', () => {
    expect(verdict([])).toEqual(IMPLIED_DENY);
    expect(compilePolicy({}).evaluate(connection({ direction: 'EGRESS' }))).toEqual(IMPLIED_ALLOW);
  });
});

describe('direction', () => {
  it('only tries rules of the connection direction', () => {
    const rules = [
      rule(10, { direction: 'EGRESS', action: 'deny' }),
      rule(20, { direction: 'INGRESS' }),
    ];
    expect(verdict(rules)).toEqual(decidedBy(20));
    expect(verdict(rules, { direction: 'EGRESS' })).toEqual(decidedBy(10, 'deny'));
  });
});

describe('priority', () => {
  it('lets the lowest priority number decide, whatever the order rules were given in', () => {
    const a = rule(500, { action: 'allow' });
    const b = rule(100, { action: 'deny', match: { srcIpRanges: ['10.0.0.0/8'] } });
    const c = rule(900, { action: 'deny' });
    for (const order of [
      [a, b, c],
      [c, b, a],
      [b, c, a],
    ]) {
      expect(verdict(order)).toEqual(decidedBy(100, 'deny'));
      expect(verdict(order, { srcIp: '11.0.0.1' })).toEqual(decidedBy(500));
    }
  });

  it('treats 0 and 65535 as ordinary priorities', () => {
    expect(verdict([rule(65535, { action: 'deny' }), rule(0)])).toEqual(decidedBy(0));
  });
});

describe('disabled rules', () => {
  it('skips a disabled rule and lets the next one decide', () => {
    const rules = [rule(10, { action: 'deny', disabled: true }), rule(20)];
    expect(verdict(rules)).toEqual(decidedBy(20));
  });

  it('falls back to the implied rule when every matching rule is disabled', () => {
    expect(verdict([rule(10, { disabled: true })])).toEqual(IMPLIED_DENY);
  });

  it('uses a rule with disabled: false', () => {
    expect(verdict([rule(10, { disabled: false })])).toEqual(decidedBy(10));
  });
});

describe('source and destination ranges', () => {
  const rules = [
    rule(10, {
      match: { srcIpRanges: ['10.1.0.0/16', '172.16.5.5'], destIpRanges: ['192.168.0.0/24'] },
    }),
  ];

  it.each([
    ['inside the CIDR', '10.1.255.255', '192.168.0.0', true],
    ['the plain address', '172.16.5.5', '192.168.0.255', true],
    ['just below the CIDR', '10.0.255.255', '192.168.0.10', false],
    ['just above the CIDR', '10.2.0.0', '192.168.0.10', false],
    ['next to the plain address', '172.16.5.6', '192.168.0.10', false],
    ['outside the destination range', '10.1.2.3', '192.168.1.0', false],
  ])('source %s: matches = %s', (_, srcIp, destIp, matches) => {
    expect(verdict(rules, { srcIp, destIp })).toEqual(matches ? decidedBy(10) : IMPLIED_DENY);
  });

  it('reads a CIDR with host bits set as its whole network', () => {
    expect(
      verdict([rule(10, { match: { srcIpRanges: ['10.1.2.3/8'] } })], { srcIp: '10.200.0.1' }),
    ).toEqual(decidedBy(10));
  });

  it('matches everything with 0.0.0.0/0 and ::/0, each in its own family', () => {
    const v4All = [rule(10, { match: { srcIpRanges: ['0.0.0.0/0'] } })];
    expect(verdict(v4All, { srcIp: '255.255.255.255' })).toEqual(decidedBy(10));
    expect(verdict(v4All, { srcIp: '0.0.0.0' })).toEqual(decidedBy(10));
    expect(verdict(v4All, { srcIp: '::1' })).toEqual(IMPLIED_DENY);
    const v6All = [rule(10, { match: { srcIpRanges: ['::/0'] } })];
    expect(verdict(v6All, { srcIp: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff' })).toEqual(
      decidedBy(10),
    );
    expect(verdict(v6All, { srcIp: '10.1.2.3' })).toEqual(IMPLIED_DENY);
  });

  it('keeps matching while one of two overlapping ranges of the same rule still covers the address', () => {
    const rules = [rule(10, { match: { srcIpRanges: ['10.0.0.0/8', '10.1.0.0/16'] } })];
    expect(verdict(rules, { srcIp: '10.1.0.5' })).toEqual(decidedBy(10));
    expect(verdict(rules, { srcIp: '10.2.0.5' })).toEqual(decidedBy(10));
  });
});

describe('IPv4 and IPv6', () => {
  const rules = [
    rule(10, { match: { srcIpRanges: ['2001:db8:1::/48'] } }),
    rule(20, { action: 'deny', match: { srcIpRanges: ['10.0.0.0/8'] } }),
  ];

  it('matches an IPv6 source against IPv6 ranges, in any notation', () => {
    expect(verdict(rules, { srcIp: '2001:db8:1::7' })).toEqual(decidedBy(10));
    expect(verdict(rules, { srcIp: '2001:0DB8:0001:ffff:ffff:ffff:ffff:ffff' })).toEqual(
      decidedBy(10),
    );
    expect(verdict(rules, { srcIp: '2001:db8:2::' })).toEqual(IMPLIED_DENY);
  });

  it('never matches an IPv4 range against an IPv6 address', () => {
    expect(verdict(rules, { srcIp: '::a01:203' })).toEqual(IMPLIED_DENY);
    expect(verdict(rules, { srcIp: '::fffe:10.1.2.3' })).toEqual(IMPLIED_DENY);
  });

  it('reads an IPv4-mapped IPv6 address as the IPv4 address it maps, as a dual-stack socket reports an IPv4 peer', () => {
    expect(verdict(rules, { srcIp: '::ffff:10.1.2.3' })).toEqual(decidedBy(20, 'deny'));
    expect(verdict(rules, { srcIp: '::FFFF:a01:203' })).toEqual(decidedBy(20, 'deny'));
    expect(
      verdict([rule(30, { action: 'deny', match: { srcIpRanges: ['::ffff:10.0.0.0/104'] } })], {
        srcIp: '10.9.9.9',
      }),
    ).toEqual(decidedBy(30, 'deny'));
  });

  it('never matches an IPv6 range against an IPv4 address', () => {
    expect(verdict([rules[0]], { srcIp: '32.1.13.184' })).toEqual(IMPLIED_DENY); // 0x20010db8 as IPv4
  });

  it('lets a rule list both families', () => {
    const both = [rule(10, { match: { destIpRanges: ['192.168.0.0/16', 'fd00::/8'] } })];
    expect(verdict(both, { destIp: 'fd12::1' })).toEqual(decidedBy(10));
    expect(verdict(both, { destIp: '192.168.9.9' })).toEqual(decidedBy(10));
  });
});

describe('protocols and ports', () => {
  it('matches every protocol and port when layer4Configs is empty or absent', () => {
    for (const layer4Configs of [[], undefined]) {
      const rules = [rule(10, { match: layer4Configs ? { layer4Configs } : {} })];
      expect(verdict(rules, { protocol: 'udp', destPort: 53 })).toEqual(decidedBy(10));
      expect(verdict(rules, { protocol: 47, destPort: undefined })).toEqual(decidedBy(10));
    }
  });

  it('matches every protocol with `all`', () => {
    const rules = [rule(10, { match: { layer4Configs: [{ ipProtocol: 'all' }] } })];
    expect(verdict(rules, { protocol: 'esp', destPort: undefined })).toEqual(decidedBy(10));
    expect(verdict(rules, { protocol: 0 })).toEqual(decidedBy(10));
  });

  it('matches only the named protocol', () => {
    const rules = [rule(10, { match: { layer4Configs: [{ ipProtocol: 'udp' }] } })];
    expect(verdict(rules, { protocol: 'udp' })).toEqual(decidedBy(10));
    expect(verdict(rules, { protocol: 'tcp' })).toEqual(IMPLIED_DENY);
  });

  it('treats a protocol number as the protocol of that name, on both sides', () => {
    const byName = [rule(10, { match: { layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] } })];
    const byNumber = [rule(10, { match: { layer4Configs: [{ ipProtocol: '6', ports: ['22'] }] } })];
    for (const rules of [byName, byNumber]) {
      for (const protocol of ['tcp', 6, '6', 'TCP']) {
        expect(verdict(rules, { protocol, destPort: 22 })).toEqual(decidedBy(10));
      }
      expect(verdict(rules, { protocol: 17, destPort: 22 })).toEqual(IMPLIED_DENY);
    }
  });

  it('matches a protocol given only by number (GRE, 47)', () => {
    const rules = [rule(10, { match: { layer4Configs: [{ ipProtocol: '47' }] } })];
    expect(verdict(rules, { protocol: 47, destPort: undefined })).toEqual(decidedBy(10));
    expect(verdict(rules, { protocol: 48, destPort: undefined })).toEqual(IMPLIED_DENY);
  });

  it('matches ICMP without ports, whether or not the connection carries a port', () => {
    const rules = [rule(10, { match: { layer4Configs: [{ ipProtocol: 'icmp' }] } })];
    expect(verdict(rules, { protocol: 'icmp', destPort: undefined })).toEqual(decidedBy(10));
    expect(verdict(rules, { protocol: 1, destPort: 0 })).toEqual(decidedBy(10));
    expect(verdict(rules, { protocol: 'icmpv6', destPort: undefined })).toEqual(IMPLIED_DENY);
  });

  it('matches a port or a port range, bounds included', () => {
    const rules = [
      rule(10, { match: { layer4Configs: [{ ipProtocol: 'tcp', ports: ['443', '8000-8080'] }] } }),
    ];
    for (const destPort of [443, 8000, 8040, 8080])
      expect(verdict(rules, { destPort })).toEqual(decidedBy(10));
    for (const destPort of [442, 444, 7999, 8081, 0, 65535])
      expect(verdict(rules, { destPort })).toEqual(IMPLIED_DENY);
  });

  it('does not match a rule with ports when the connection has no destination port, but does match one without ports', () => {
    const rules = [
      rule(10, { match: { layer4Configs: [{ ipProtocol: 'tcp', ports: ['0-65535'] }] } }),
      rule(20, { action: 'deny', match: { layer4Configs: [{ ipProtocol: 'tcp' }] } }),
    ];
    expect(verdict(rules, { destPort: undefined })).toEqual(decidedBy(20, 'deny'));
    expect(verdict(rules, { destPort: 65535 })).toEqual(decidedBy(10));
  });

  it('matches when any one of several layer-4 configs matches', () => {
    const rules = [
      rule(10, {
        match: {
          layer4Configs: [
            { ipProtocol: 'tcp', ports: ['22'] },
            { ipProtocol: 'udp', ports: ['53'] },
            { ipProtocol: 'icmp' },
          ],
        },
      }),
    ];
    expect(verdict(rules, { protocol: 'udp', destPort: 53 })).toEqual(decidedBy(10));
    expect(verdict(rules, { protocol: 'tcp', destPort: 53 })).toEqual(IMPLIED_DENY);
    expect(verdict(rules, { protocol: 'icmp', destPort: undefined })).toEqual(decidedBy(10));
  });

  it('ignores the source port', () => {
    const rules = [rule(10, { match: { layer4Configs: [{ ipProtocol: 'tcp', ports: ['443'] }] } })];
    expect(verdict(rules, { srcPort: 443, destPort: 50000 })).toEqual(IMPLIED_DENY);
  });
});

describe('target tags', () => {
  const rules = [
    rule(10, { action: 'deny', targetTags: ['db'] }),
    rule(20, { action: 'allow', targetTags: ['web', 'api'] }),
    rule(30, { action: 'deny', match: { srcIpRanges: ['10.0.0.0/8'] } }),
  ];

  it('applies a tagged rule only to connections carrying one of its tags', () => {
    expect(verdict(rules, { targetTags: ['db'] })).toEqual(decidedBy(10, 'deny'));
    expect(verdict(rules, { targetTags: ['api'] })).toEqual(decidedBy(20));
  });

  it('applies an untagged rule to every connection, tagged or not', () => {
    expect(verdict(rules, { targetTags: ['cache'] })).toEqual(decidedBy(30, 'deny'));
    expect(verdict(rules, { targetTags: [] })).toEqual(decidedBy(30, 'deny'));
    expect(verdict(rules)).toEqual(decidedBy(30, 'deny'));
  });

  it('with several tags, lets the first rule matching any of them decide', () => {
    expect(verdict(rules, { targetTags: ['cache', 'web', 'db'] })).toEqual(decidedBy(10, 'deny'));
    expect(verdict(rules, { targetTags: ['web', 'api', 'cache'] })).toEqual(decidedBy(20));
  });
});

describe('a rule matches only when every dimension matches', () => {
  const rules = [
    rule(10, {
      action: 'deny',
      match: {
        srcIpRanges: ['10.0.0.0/8'],
        destIpRanges: ['192.168.0.0/16'],
        layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }],
      },
      targetTags: ['ssh'],
    }),
  ];
  const all: Partial<Connection> = {
    srcIp: '10.9.9.9',
    destIp: '192.168.1.1',
    protocol: 'tcp',
    destPort: 22,
    targetTags: ['ssh'],
  };

  it.each([
    ['source', { srcIp: '11.0.0.1' }],
    ['destination', { destIp: '192.169.0.1' }],
    ['protocol', { protocol: 'udp' }],
    ['port', { destPort: 23 }],
    ['tags', { targetTags: ['web'] }],
  ])('misses on the %s alone', (_, miss) => {
    expect(verdict(rules, all)).toEqual(decidedBy(10, 'deny'));
    expect(verdict(rules, { ...all, ...miss })).toEqual(IMPLIED_DENY);
  });
});

describe('large policies', () => {
  // 2,000 rules per direction: beyond the first 1,024, the scans and walks cross into the
  // second aggregate word, where an off-by-one would hide.
  it('finds the deciding rule among 2,000 rules that differ only in their port', () => {
    const rules = Array.from({ length: 2000 }, (_, i) =>
      rule(i, { match: { layer4Configs: [{ ipProtocol: 'tcp', ports: [String(10000 + i)] }] } }),
    );
    const policy = compilePolicy({ rules });
    for (const i of [0, 31, 32, 1023, 1024, 1999])
      expect(policy.evaluate(connection({ destPort: 10000 + i }))).toEqual(decidedBy(i));
    expect(policy.evaluate(connection({ destPort: 12000 }))).toEqual(IMPLIED_DENY);
  });

  it('finds the deciding rule among 2,000 rules that differ only in their source address', () => {
    const address = (i: number) => `10.1.${i >> 8}.${i & 255}`;
    const rules = Array.from({ length: 2000 }, (_, i) =>
      rule(2000 - i, { match: { srcIpRanges: [address(i)] } }),
    );
    const policy = compilePolicy({ rules });
    for (const i of [0, 976, 1999])
      expect(policy.evaluate(connection({ srcIp: address(i) }))).toEqual(decidedBy(2000 - i));
    expect(policy.evaluate(connection({ srcIp: address(2000) }))).toEqual(IMPLIED_DENY);
  });

  it('lets a broad rule and a narrow rule compete on priority', () => {
    const narrow = Array.from({ length: 1500 }, (_, i) =>
      rule(100 + i, { match: { srcIpRanges: [`10.2.${i >> 8}.${i & 255}/32`] } }),
    );
    const rules = [
      ...narrow,
      rule(50, { action: 'deny', match: { layer4Configs: [{ ipProtocol: 'udp' }] } }),
      rule(1000, { action: 'deny' }),
    ];
    const policy = compilePolicy({ rules });
    expect(policy.evaluate(connection({ srcIp: '10.2.0.5' }))).toEqual(decidedBy(105)); // narrow beats the catch-all at 1000
    expect(policy.evaluate(connection({ srcIp: '10.2.5.5' }))).toEqual(decidedBy(1000, 'deny')); // 1385 > 1000
    expect(policy.evaluate(connection({ srcIp: '10.2.0.5', protocol: 'udp' }))).toEqual(
      decidedBy(50, 'deny'),
    );
  });
});

describe('malformed connections', () => {
  const policy = compilePolicy({ rules: [rule(10)] });

  it.each([
    ['a bad source address', { srcIp: '10.0.0.256' }],
    ['a bad destination address', { destIp: 'example.com' }],
    ['an unknown protocol name', { protocol: 'gre' }],
    ['a protocol number out of range', { protocol: 256 }],
    ['an unknown direction', { direction: 'INBOUND' as Connection['direction'] }],
  ])(
    'refuses %s: evaluate throws, parseConnection returns undefined, connectionProblem says why',
    (_, bad) => {
      expect(() => policy.evaluate(connection(bad))).toThrow(RangeError);
      expect(parseConnection(connection(bad))).toBeUndefined();
      expect(connectionProblem(connection(bad))).toMatch(/direction|srcIp|destIp|protocol/);
    },
  );

  it('names the faulty field in the error', () => {
    expect(() => policy.evaluate(connection({ destIp: '10.0.0.300' }))).toThrow(
      'destIp is not an IPv4 or IPv6 address',
    );
    expect(connectionProblem(connection())).toBeUndefined();
  });
});

describe('evaluateParsed', () => {
  it('gives the same verdict as evaluate for one connection parsed once and evaluated against several policies', () => {
    const live = compilePolicy({ rules: [rule(10, { match: { srcIpRanges: ['10.0.0.0/8'] } })] });
    const experiment = compilePolicy({
      rules: [rule(5, { action: 'deny', match: { layer4Configs: [{ ipProtocol: 'tcp' }] } })],
    });
    const c = connection();
    const parsed = parseConnection(c)!;
    expect(live.evaluateParsed(parsed)).toEqual(decidedBy(10));
    expect(experiment.evaluateParsed(parsed)).toEqual(decidedBy(5, 'deny'));
    expect(live.evaluateParsed(parsed)).toEqual(live.evaluate(c));
  });

  it('sees the tags of a policy compiled after the connection was parsed', () => {
    // Tags resolve to ids when a connection is parsed; a tag first named by a later policy
    // (an experiment created meanwhile) has no id yet and must still match by name.
    const parsed = parseConnection(connection({ targetTags: ['other', 'brand-new-tag'] }))!;
    const later = compilePolicy({
      rules: [rule(10, { targetTags: ['brand-new-tag'] }), rule(20, { action: 'deny' })],
    });
    expect(later.evaluateParsed(parsed)).toEqual(decidedBy(10));
    expect(later.evaluate(connection({ targetTags: ['other', 'brand-new-tag'] }))).toEqual(
      decidedBy(10),
    );
  });
});

describe('stats', () => {
  it('counts the enabled rules and the bytes the tables hold', () => {
    const { stats } = compilePolicy({
      rules: [rule(1), rule(2, { disabled: true }), rule(3, { direction: 'EGRESS' })],
    });
    expect(stats.rules).toBe(2);
    expect(stats.bytes).toBeGreaterThan(0);
  });
});
