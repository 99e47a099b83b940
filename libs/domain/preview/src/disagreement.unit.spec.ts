import { StoredCohortFlow, pairDisagreements } from './disagreement';

const flow = (srcIp: string, mask: number, count: number): StoredCohortFlow => ({
  direction: 'INGRESS',
  srcIp,
  destIp: '10.0.0.5',
  protocol: 'tcp',
  destPort: 22,
  mask,
  count,
});

describe('pair disagreements, read from cohorts', () => {
  // Members 7, 8, 9: pattern 0b001 (7 denies, 8 and 9 allow) on 5 events, 0b110 on 3 events.
  const cohort = {
    configurationIds: [7, 8, 9],
    masks: [
      { mask: 0b001, events: 5 },
      { mask: 0b110, events: 3 },
    ],
    flows: [flow('192.0.2.1', 0b001, 4), flow('192.0.2.2', 0b110, 3)],
  };

  it("counts a pair's events where the pair's two bits differ, with this configuration's action on its flows", () => {
    const pairs = pairDisagreements([cohort], [7]);
    expect(pairs.map((p) => [p.otherId, p.events, p.outside])).toEqual([
      [8, 8, 1],
      [9, 8, 1],
    ]);
    expect(pairs[0].topFlows.map((f) => [f.srcIp, f.action, f.count])).toEqual([
      ['192.0.2.1', 'deny', 4],
      ['192.0.2.2', 'allow', 3],
    ]);
  });

  it('finds nothing between members that agree on every pattern', () => {
    expect(pairDisagreements([cohort], [8]).map((p) => p.otherId)).toEqual([7]);
  });

  it('adds a pair up across cohorts (before and after a third experiment started), merging its flows', () => {
    const before = {
      configurationIds: [7, 8],
      masks: [{ mask: 0b01, events: 2 }],
      flows: [flow('192.0.2.1', 0b01, 2)],
    };
    const [pair] = pairDisagreements([before, cohort], [7]).filter((p) => p.otherId === 8);
    expect([pair.events, pair.outside]).toEqual([10, 1]);
    expect(pair.topFlows.map((f) => [f.srcIp, f.count])).toEqual([
      ['192.0.2.1', 6],
      ['192.0.2.2', 3],
    ]);
  });

  it('keeps the most frequent flows first, at most `top`', () => {
    const many = {
      configurationIds: [1, 2],
      masks: [{ mask: 0b01, events: 6 }],
      flows: [flow('192.0.2.3', 0b01, 1), flow('192.0.2.4', 0b01, 3), flow('192.0.2.5', 0b01, 2)],
    };
    const [pair] = pairDisagreements([many], [1], 2);
    expect(pair.topFlows.map((f) => f.srcIp)).toEqual(['192.0.2.4', '192.0.2.5']);
    expect(pair.outside).toBe(0);
  });
});
