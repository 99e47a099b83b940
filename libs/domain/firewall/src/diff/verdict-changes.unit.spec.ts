import type { FirewallRule } from '@rollout/contracts';
import { describeRanges, verdictChanges } from '.';

const rule = (priority: number, action: 'allow' | 'deny', src: string[], ports = ['22']) =>
  ({
    priority,
    direction: 'INGRESS',
    action,
    match: { srcIpRanges: src, layer4Configs: [{ ipProtocol: 'tcp', ports }] },
  }) as FirewallRule;

describe('verdict changes in words', () => {
  it('given SSH open to the world, when it is closed except for 10.0.0.0/8, then one region is now denied, said with its exception', () => {
    const live = [rule(100, 'allow', ['0.0.0.0/0'])];
    const next = [rule(100, 'allow', ['10.0.0.0/8']), rule(200, 'deny', ['0.0.0.0/0'])];
    const diff = verdictChanges(live, next);
    expect(diff.nowAllowed).toEqual([]);
    expect(diff.truncated).toBe(false);
    expect(diff.nowDenied.map((change) => change.summary)).toEqual([
      'tcp/22 from 0.0.0.0/0 is now denied, except 10.0.0.0/8',
    ]);
    expect(diff.nowDenied[0].region.liveVerdict).toMatchObject({
      action: 'allow',
      rulePriority: 100,
    });
  });

  it('given a port opened to one range, when diffed, then it is now allowed, said without exception', () => {
    const diff = verdictChanges([], [rule(10, 'allow', ['192.0.2.0/24'], ['443', '8000-8080'])]);
    expect(diff.nowDenied).toEqual([]);
    expect(diff.nowAllowed.map((change) => change.summary)).toEqual([
      'tcp/443,8000-8080 from 192.0.2.0/24 is now allowed',
    ]);
  });

  it('given rules that decide the same everywhere, when diffed, then nothing changes verdict', () => {
    const rules = [rule(10, 'deny', ['0.0.0.0/0'])];
    expect(verdictChanges(rules, rules)).toEqual({
      nowDenied: [],
      nowAllowed: [],
      truncated: false,
    });
  });

  it('given more regions than may be listed, when diffed, then it says the list is truncated', () => {
    const next = [
      rule(1, 'allow', ['10.0.0.0/8'], ['22']),
      rule(2, 'allow', ['10.0.0.0/8'], ['80']),
      rule(3, 'allow', ['0.0.0.0/0'], ['443']),
    ];
    const diff = verdictChanges([], next, 1);
    expect(diff.nowAllowed).toHaveLength(1);
    expect(diff.truncated).toBe(true);
  });
});

describe('address ranges in words', () => {
  it('given every address of both families, then it is anywhere', () => {
    expect(describeRanges(['0.0.0.0/0', '::/0'])).toMatchObject({ everything: true });
  });

  it('given a few blocks that are not most of a larger one, then they are listed as they are', () => {
    expect(describeRanges(['10.0.0.0/8', '192.168.0.0/16'])).toEqual({
      everything: false,
      text: '10.0.0.0/8 and 192.168.0.0/16',
      except: '',
    });
  });

  it('given an IPv6 block with a hole, then the block and its exception', () => {
    expect(describeRanges(['2001:db8:8000::/33', '2001:db8:4000::/34'])).toEqual({
      everything: false,
      text: '2001:db8::/32',
      except: '2001:db8::/34',
    });
  });
});
