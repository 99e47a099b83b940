import { FirewallRule } from '../model';
import { analyzeExperiment, untouchedRegions } from '.';

const rule = (priority: number, extra: Partial<FirewallRule> = {}): FirewallRule => ({
  priority,
  direction: 'INGRESS',
  action: 'allow',
  match: {},
  ...extra,
});
const ANY = ['0.0.0.0/0', '::/0'];
const IMPLIED_DENY = { action: 'deny', rulePriority: null, implied: true };
const by = (priority: number, action: 'allow' | 'deny' = 'allow') => ({
  action,
  rulePriority: priority,
  implied: false,
});
const analyze = (live: FirewallRule[], experiment: FirewallRule[], maxRegions?: number) =>
  analyzeExperiment({ rules: live }, { rules: experiment }, 'W/"1"', { maxRegions });

describe('differing regions', () => {
  it('finds the one port a new rule opens, and nothing where both policies agree', () => {
    const ssh = rule(100, {
      match: { srcIpRanges: ['10.0.0.0/8'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] },
    });
    const https = rule(200, {
      match: { srcIpRanges: ['0.0.0.0/0'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['443'] }] },
    });
    expect(analyze([ssh], [ssh, https])).toEqual({
      livePolicyEtag: 'W/"1"',
      shadowedRules: [],
      differingRegions: [
        {
          direction: 'INGRESS',
          srcIpRanges: ['0.0.0.0/0'],
          destIpRanges: ANY,
          layer4Configs: [{ ipProtocols: ['tcp'], ports: ['443'] }],
          liveVerdict: IMPLIED_DENY,
          experimentVerdict: by(200),
        },
      ],
      regionsOmitted: 0,
      complete: true,
    });
  });

  it('is exact over IPv6 prefixes', () => {
    const live = [
      rule(10, { action: 'deny', match: { srcIpRanges: ['2001:db8::/32'] } }),
      rule(20),
    ];
    const experiment = [
      rule(10, { action: 'deny', match: { srcIpRanges: ['2001:db8::/33'] } }),
      rule(20),
    ];
    expect(analyze(live, experiment).differingRegions).toEqual([
      {
        direction: 'INGRESS',
        srcIpRanges: ['2001:db8:8000::/33'],
        destIpRanges: ANY,
        layer4Configs: [{ ipProtocols: ['all'] }],
        liveVerdict: by(10, 'deny'),
        experimentVerdict: by(20),
      },
    ]);
  });

  it('reads IPv4-mapped ranges as IPv4, and finds nothing where only IPv4-mapped IPv6 keys, which no connection has, differ', () => {
    expect(
      analyze(
        [rule(10, { match: { srcIpRanges: ['10.0.0.0/8'] } })],
        [rule(10, { match: { srcIpRanges: ['::ffff:10.0.0.0/104'] } })],
      ).differingRegions,
    ).toEqual([]);
    const live = [rule(10, { match: { srcIpRanges: ['::fffe:0:0/96'] } })];
    expect(
      analyze(live, [rule(10, { match: { srcIpRanges: ['::fffe:0:0/95'] } })]).differingRegions,
    ).toEqual([]);
    // ::/0 keeps its one block: the unmapped hole is spanned, never listed on its own (its text would read as IPv4).
    const [region] = analyze(
      [],
      [rule(10, { match: { srcIpRanges: ['::/0', '::ffff:0:0/96'] } })],
    ).differingRegions;
    expect(region.srcIpRanges).toEqual(['0.0.0.0/0', '::/0']);
  });

  it('cuts an IPv4 range out of a wider one as the fewest CIDR blocks', () => {
    const live = [rule(10, { match: { destIpRanges: ['192.168.0.0/16'] } })];
    const experiment = [
      rule(5, { action: 'deny', match: { destIpRanges: ['192.168.0.0/18', '192.168.128.0/17'] } }),
      rule(10, { match: { destIpRanges: ['192.168.0.0/16'] } }),
    ];
    const [region] = analyze(live, experiment).differingRegions;
    expect(region.destIpRanges).toEqual(['192.168.0.0/18', '192.168.128.0/17']);
    expect(region.srcIpRanges).toEqual(ANY);
    expect(region.liveVerdict).toEqual(by(10));
    expect(region.experimentVerdict).toEqual(by(5, 'deny'));
  });

  it('is exact over port ranges, one region per pair of deciding rules', () => {
    const live = [
      rule(10, { match: { layer4Configs: [{ ipProtocol: 'tcp', ports: ['8000-8080'] }] } }),
    ];
    const experiment = [
      rule(10, { match: { layer4Configs: [{ ipProtocol: 'tcp', ports: ['8000-8079', '8081'] }] } }),
    ];
    const regions = analyze(live, experiment).differingRegions;
    expect(regions.map((r) => [r.layer4Configs, r.liveVerdict, r.experimentVerdict])).toEqual([
      [[{ ipProtocols: ['tcp'], ports: ['8080'] }], by(10), IMPLIED_DENY],
      [[{ ipProtocols: ['tcp'], ports: ['8081'] }], IMPLIED_DENY, by(10)],
    ]);
  });

  it('treats a protocol without ports as matching connections without a port, and a full port range as not', () => {
    const regions = analyze(
      [rule(10, { match: { layer4Configs: [{ ipProtocol: 'tcp' }] } })],
      [rule(10, { match: { layer4Configs: [{ ipProtocol: '6', ports: ['0-65535'] }] } })],
    ).differingRegions;
    expect(regions.map((r) => r.layer4Configs)).toEqual([
      [{ ipProtocols: ['tcp'], ports: [], portless: true }],
    ]);
  });

  it('lists the protocols an `all` rule adds beyond the named ones, as names and number ranges', () => {
    const live = [
      rule(10, { match: { layer4Configs: [{ ipProtocol: 'tcp' }, { ipProtocol: 'udp' }] } }),
    ];
    const regions = analyze(live, [
      rule(10, { match: { layer4Configs: [{ ipProtocol: 'all' }] } }),
    ]).differingRegions;
    expect(regions).toHaveLength(1);
    expect(regions[0].layer4Configs).toEqual([
      {
        ipProtocols: [
          '0',
          'icmp',
          '2-5',
          '7-16',
          '18-49',
          'esp',
          'ah',
          '52-57',
          'icmpv6',
          '59-131',
          'sctp',
          '133-255',
        ],
      },
    ]);
  });

  it('ignores host bits, disabled rules and rules of the other direction when they change nothing', () => {
    const live = [rule(10, { match: { srcIpRanges: ['10.0.0.0/8'] } })];
    const experiment = [
      rule(10, { match: { srcIpRanges: ['10.1.2.3/8'] } }),
      rule(5, { action: 'deny', disabled: true }),
      rule(7, { direction: 'EGRESS', action: 'allow' }),
    ];
    expect(analyze(live, experiment).differingRegions).toEqual([]);
  });

  it('splits by target tags: what a rule adds for a second tag is the connections with it and without the first', () => {
    const live = [rule(10, { targetTags: ['web'] })];
    const experiment = [rule(10, { targetTags: ['web', 'db'] })];
    const regions = analyze(live, experiment).differingRegions;
    expect(regions).toHaveLength(1);
    expect(regions[0].target).toEqual({ tagsAbsent: ['web'], anyTagOf: [['db']] });
    expect(regions[0].liveVerdict).toEqual(IMPLIED_DENY);
  });

  it('compares EGRESS against its implied allow', () => {
    const experiment = [
      rule(10, {
        direction: 'EGRESS',
        action: 'deny',
        match: {
          destIpRanges: ['203.0.113.0/24'],
          layer4Configs: [{ ipProtocol: 'udp', ports: ['53'] }],
        },
      }),
    ];
    expect(analyze([], experiment).differingRegions).toEqual([
      {
        direction: 'EGRESS',
        srcIpRanges: ANY,
        destIpRanges: ['203.0.113.0/24'],
        layer4Configs: [{ ipProtocols: ['udp'], ports: ['53'] }],
        liveVerdict: { action: 'allow', rulePriority: null, implied: true },
        experimentVerdict: by(10, 'deny'),
      },
    ]);
  });

  it('lists at most maxRegions and counts the rest', () => {
    const live = [
      rule(10, { match: { layer4Configs: [{ ipProtocol: 'tcp', ports: ['8000-8080'] }] } }),
    ];
    const experiment = [
      rule(10, { match: { layer4Configs: [{ ipProtocol: 'tcp', ports: ['8000-8079', '8081'] }] } }),
    ];
    const analysis = analyze(live, experiment, 1);
    expect(analysis.differingRegions).toHaveLength(1);
    expect(analysis.regionsOmitted).toBe(1);
  });
});

describe('work bound', () => {
  it('gives up on a policy pair whose differences form a grid too large to list, and says so', () => {
    // Live rules cut the sources, experiment rules the destinations: every source × destination cell is its own region.
    const live = Array.from({ length: 800 }, (_, i) =>
      rule(i, { match: { srcIpRanges: [`10.${i >> 8}.${i & 255}.0/24`] } }),
    );
    const experiment = Array.from({ length: 800 }, (_, i) =>
      rule(i, { action: 'deny', match: { destIpRanges: [`172.16.${i >> 8}.${i & 255}/32`] } }),
    );
    expect(analyze(live, experiment)).toEqual({
      livePolicyEtag: 'W/"1"',
      shadowedRules: [],
      differingRegions: [],
      regionsOmitted: 0,
      complete: false,
    });
    // A slice of the same grid is within the bound, and exact.
    const small = analyze(live.slice(0, 3), experiment.slice(0, 2));
    expect(small.complete).toBe(true);
    // Each source with each destination, and each source with every other destination (the implied deny).
    expect(small.differingRegions.length + small.regionsOmitted).toBe(3 * 2 + 3);
  });
});

describe('shadowed rules', () => {
  it('names a rule whose whole match space higher rules decide, with the rules that decide it', () => {
    const experiment = [
      rule(10, { action: 'deny', match: { srcIpRanges: ['10.0.0.0/9'] } }),
      rule(20, { match: { srcIpRanges: ['10.128.0.0/9'] } }),
      rule(30, { match: { srcIpRanges: ['10.0.0.0/8'], layer4Configs: [{ ipProtocol: 'tcp' }] } }),
      rule(40, { match: { srcIpRanges: ['10.0.0.0/8', '192.0.2.0/24'] } }),
    ];
    expect(analyze([], experiment).shadowedRules).toEqual([
      { priority: 30, direction: 'INGRESS', coveredBy: [10, 20] },
    ]);
  });

  it('does not call a tagged rule shadowed by an untagged one only for some tags, nor an IPv6 rule by an IPv4 one', () => {
    const experiment = [
      rule(10, { match: { srcIpRanges: ['0.0.0.0/0'] } }),
      rule(20, { match: { srcIpRanges: ['::/0'] } }),
      rule(30, { targetTags: ['web'] }),
    ];
    expect(analyze([], experiment).shadowedRules).toEqual([
      { priority: 30, direction: 'INGRESS', coveredBy: [10, 20] },
    ]);
    expect(analyze([], experiment.slice(0, 2)).shadowedRules).toEqual([]);
    const ports = [
      rule(10, { match: { layer4Configs: [{ ipProtocol: 'tcp', ports: ['0-65535'] }] } }),
      rule(20, { match: { layer4Configs: [{ ipProtocol: 'tcp' }] } }),
    ];
    // tcp without ports also matches connections without a port, which 0-65535 does not.
    expect(analyze([], ports).shadowedRules).toEqual([]);
  });
});

describe('untouchedRegions', () => {
  it('keeps the regions no flow lies in', () => {
    const live = [
      rule(10, { match: { layer4Configs: [{ ipProtocol: 'tcp', ports: ['8000-8080'] }] } }),
    ];
    const experiment = [
      rule(10, { match: { layer4Configs: [{ ipProtocol: 'tcp', ports: ['8000-8079', '8081'] }] } }),
    ];
    const regions = analyze(live, experiment).differingRegions;
    const flow = {
      direction: 'INGRESS' as const,
      srcIp: '2001:db8::1',
      destIp: '10.0.0.1',
      protocol: 'tcp',
      destPort: 8080,
    };
    expect(untouchedRegions(regions, [flow])).toEqual([regions[1]]);
    expect(
      untouchedRegions(regions, [
        { ...flow, direction: 'EGRESS' },
        { ...flow, destPort: 8082 },
        { ...flow, protocol: 'udp' },
      ]),
    ).toEqual(regions);
    expect(untouchedRegions(regions, [flow, { ...flow, destPort: 8081, protocol: '6' }])).toEqual(
      [],
    );
  });
});

describe('the example of docs/static-analysis.md', () => {
  it('finds the shadowed rule and the two regions, and the one no previewed flow touched', () => {
    const ssh = rule(100, {
      match: {
        srcIpRanges: ['10.0.0.0/8', '2001:db8::/32'],
        layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }],
      },
    });
    const widened = rule(200, {
      match: {
        srcIpRanges: ['2001:db8::/31'],
        layer4Configs: [{ ipProtocol: 'tcp', ports: ['22', '8000-8080'] }],
      },
    });
    const shadowed = rule(300, {
      match: {
        srcIpRanges: ['10.1.0.0/16'],
        layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }],
      },
    });
    const analysis = analyze([ssh], [ssh, widened, shadowed]);
    expect(analysis.shadowedRules).toEqual([
      { priority: 300, direction: 'INGRESS', coveredBy: [100] },
    ]);
    expect(
      analysis.differingRegions.map((r) => [
        r.srcIpRanges,
        r.layer4Configs,
        r.liveVerdict,
        r.experimentVerdict,
      ]),
    ).toEqual([
      [['2001:db8::/32'], [{ ipProtocols: ['tcp'], ports: ['8000-8080'] }], IMPLIED_DENY, by(200)],
      [
        ['2001:db9::/32'],
        [{ ipProtocols: ['tcp'], ports: ['22', '8000-8080'] }],
        IMPLIED_DENY,
        by(200),
      ],
    ]);
    const flow = {
      direction: 'INGRESS' as const,
      srcIp: '2001:db8::5',
      destIp: '10.0.0.1',
      protocol: 'tcp',
      destPort: 8080,
    };
    expect(untouchedRegions(analysis.differingRegions, [flow])).toEqual([
      analysis.differingRegions[1],
    ]);
  });
});
