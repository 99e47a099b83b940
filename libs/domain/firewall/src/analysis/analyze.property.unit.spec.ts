/**
 * Property test: for seeded random pairs of policies and random connections, the differing
 * regions hold a connection exactly when the compiled engine gives the two policies different
 * actions, and then exactly one region holds it, naming the rules the engine names. No
 * connection is decided by a rule the analysis calls shadowed, and a connection such a rule
 * matches is decided by a rule its coveredBy names. Rules and traffic are drawn from
 * small spaces (addresses, ports, tags) so that ranges overlap, nest and touch.
 */
import { FirewallRule, Layer4Config } from '../model';
import { compilePolicy, Connection } from '../engine';
import { analyzeExperiment, regionMatcher } from '.';
import { Rng, prng } from '@rollout/testing/kit';

const v4 = (r: Rng) => `10.0.${r.int(4)}.${r.int(256)}`;
const v6 = (r: Rng) => `2001:db8::${r.int(1024).toString(16)}`;
const range = (r: Rng) => {
  if (r.chance(0.05))
    return r.pick([
      '0.0.0.0/0',
      '::/0',
      '10.0.0.0/8',
      '2001:db8::/32',
      '::ffff:10.0.0.0/118',
      '::/64',
      '::fffe:0:0/95',
    ]);
  if (r.chance(0.1)) return r.chance(0.7) ? v4(r) : v6(r);
  return r.chance(0.7) ? `${v4(r)}/${22 + r.int(11)}` : `${v6(r)}/${118 + r.int(11)}`; // host bits set on purpose
};

function l4(r: Rng): Layer4Config {
  if (r.chance(0.08)) return { ipProtocol: 'all' };
  const ipProtocol = r.pick(['tcp', 'udp', 'icmp', '6', '17', '47']);
  if (!['tcp', 'udp', '6', '17'].includes(ipProtocol) || r.chance(0.2)) return { ipProtocol };
  const ports = Array.from({ length: 1 + r.int(2) }, () => {
    if (r.chance(0.1)) return r.pick(['65535', '0-65535', '0']);
    const low = r.int(21);
    return r.chance(0.5) ? String(low) : `${low}-${Math.min(20, low + r.int(8))}`;
  });
  return { ipProtocol, ports };
}

// A source tag named like a target tag: the two dimensions must stay apart.
const SOURCE_TAGS = ['tagValues/1', 'k8s:app=web', 'web'];

const list = <T>(r: Rng, pEmpty: number, max: number, item: () => T): T[] | undefined =>
  r.chance(pEmpty)
    ? r.chance(0.5)
      ? []
      : undefined
    : Array.from({ length: 1 + r.int(max) }, item);

function policy(r: Rng, count: number): FirewallRule[] {
  const priorities = new Set<number>();
  while (priorities.size < count) priorities.add(r.int(200));
  return [...priorities].map((priority) => {
    const srcIpRanges = list(r, 0.3, 2, () => range(r));
    const destIpRanges = list(r, 0.5, 2, () => range(r));
    const layer4Configs = list(r, 0.25, 2, () => l4(r));
    const targetTags = list(r, 0.7, 2, () => r.pick(['web', 'db', 'ssh']));
    const srcSecureTags = list(r, 0.7, 2, () => ({ name: r.pick(SOURCE_TAGS) }));
    return {
      priority,
      direction: r.chance(0.6) ? 'INGRESS' : 'EGRESS',
      action: r.chance(0.5) ? 'allow' : 'deny',
      match: {
        ...(srcIpRanges ? { srcIpRanges } : {}),
        ...(destIpRanges ? { destIpRanges } : {}),
        ...(layer4Configs ? { layer4Configs } : {}),
        ...(srcSecureTags ? { srcSecureTags } : {}),
      },
      ...(targetTags ? { targetTags } : {}),
      ...(r.chance(0.1) ? { disabled: true } : {}),
    };
  });
}

/** The experiment: the live policy with a few rules changed, added or removed, as operators edit. */
function edit(r: Rng, live: FirewallRule[]): FirewallRule[] {
  const kept = live
    .filter(() => !r.chance(0.15))
    .map((rule) =>
      r.chance(0.15) ? { ...rule, action: rule.action === 'allow' ? 'deny' : 'allow' } : rule,
    ) as FirewallRule[];
  const used = new Set(kept.map((rule) => rule.priority));
  return [...kept, ...policy(r, 1 + r.int(4)).filter((rule) => !used.has(rule.priority))];
}

function connection(r: Rng): Connection {
  const family6 = r.chance(0.3);
  const address = () =>
    family6
      ? r.chance(0.1)
        ? `::ffff:${v4(r)}`
        : r.chance(0.05)
          ? `::fffe:${v4(r)}`
          : v6(r)
      : v4(r);
  const tags = Array.from({ length: r.int(3) }, () => r.pick(['web', 'db', 'ssh', 'other']));
  const sourceTags = Array.from({ length: r.int(3) }, () => r.pick([...SOURCE_TAGS, 'other']));
  return {
    direction: r.chance(0.6) ? 'INGRESS' : 'EGRESS',
    srcIp: address(),
    destIp: r.chance(0.05) ? (family6 ? v4(r) : v6(r)) : address(),
    protocol: r.pick(['tcp', 'udp', 'icmp', 47, 6, 'esp']),
    ...(r.chance(0.9) ? { destPort: r.chance(0.05) ? 65535 : r.int(24) } : {}),
    ...(tags.length ? { targetTags: tags } : {}),
    ...(sourceTags.length ? { srcSecureTags: sourceTags } : {}),
  };
}

describe('differing regions against the engine', () => {
  it('hold exactly the connections the two policies decide differently (300 seeded pairs × 200 connections)', () => {
    let differing = 0;
    let bySourceTags = 0;
    let agreeing = 0;
    let shadowed = 0;
    let covered = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const r = prng(seed);
      const liveRules = policy(r, seed % 13);
      const experimentRules = edit(r, liveRules);
      const analysis = analyzeExperiment({ rules: liveRules }, { rules: experimentRules }, 'etag', {
        maxRegions: 10_000,
      });
      expect(analysis.complete).toBe(true);
      expect(analysis.regionsOmitted).toBe(0);
      shadowed += analysis.shadowedRules.length;
      const shadowedPriorities = new Set(
        analysis.shadowedRules.map((s) => `${s.direction}:${s.priority}`),
      );
      // Each shadowed rule alone, to find the connections it matches.
      const shadowedAlone = analysis.shadowedRules.map((shadowed) => ({
        shadowed,
        policy: compilePolicy({
          rules: experimentRules.filter(
            (x) => x.priority === shadowed.priority && x.direction === shadowed.direction,
          ),
        }),
      }));
      const live = compilePolicy({ rules: liveRules });
      const experiment = compilePolicy({ rules: experimentRules });
      const matchers = analysis.differingRegions.map((region) => ({
        region,
        contains: regionMatcher(region),
      }));
      for (let i = 0; i < 200; i++) {
        const c = connection(r);
        const a = live.evaluate(c);
        const b = experiment.evaluate(c);
        const holding = matchers.filter((m) => m.contains(c)).map((m) => m.region);
        const fail = (what: string) => {
          throw new Error(
            `seed ${seed}: ${JSON.stringify(c)}: ${what}; live ${JSON.stringify(a)}, experiment ${JSON.stringify(b)}, regions ${JSON.stringify(holding)}`,
          );
        };
        if (a.action !== b.action) {
          differing++;
          if (holding.length !== 1) fail('decided differently, not in exactly one region');
          const [region] = holding;
          if (region.srcSecureTags) bySourceTags++;
          if (
            region.liveVerdict.rulePriority !== a.rulePriority ||
            region.experimentVerdict.rulePriority !== b.rulePriority
          )
            fail('the region names other rules');
          if (
            region.liveVerdict.action !== a.action ||
            region.experimentVerdict.action !== b.action
          )
            fail('the region names other actions');
        } else {
          agreeing++;
          if (holding.length !== 0) fail('decided alike, yet in a region');
        }
        if (b.rulePriority !== null && shadowedPriorities.has(`${c.direction}:${b.rulePriority}`))
          fail('decided by a rule called shadowed');
        for (const { shadowed, policy } of shadowedAlone) {
          if (policy.evaluate(c).implied) continue;
          covered++;
          if (!shadowed.coveredBy.includes(b.rulePriority!))
            fail(
              `matched by shadowed rule ${shadowed.priority}, decided by a rule not in its coveredBy`,
            );
        }
      }
    }
    // The draw must exercise both outcomes and shadowed rules that match traffic, or agreement proves little.
    expect(differing).toBeGreaterThan(3000);
    expect(bySourceTags).toBeGreaterThan(300);
    expect(agreeing).toBeGreaterThan(20000);
    expect(shadowed).toBeGreaterThan(20);
    expect(covered).toBeGreaterThan(300);
  }, 120_000);
});
