import { PairDisagreementFlow, StoredPairFlows, pairDisagreements } from './disagreement';

const flow = (srcIp: string, action: 'allow' | 'deny', count: number): PairDisagreementFlow => ({
  direction: 'INGRESS',
  srcIp,
  destIp: '10.0.0.5',
  protocol: 'tcp',
  destPort: 22,
  action,
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
  };
  const stored: StoredPairFlows[] = [
    { configurationId: 7, otherId: 8, kept: 7, top: [flow('192.0.2.1', 'deny', 4)] },
  ];

  it("counts a pair's events where the pair's two bits differ, and the events outside its kept flows", () => {
    const pairs = pairDisagreements([cohort], [7], stored);
    expect(pairs.map((p) => [p.otherId, p.events, p.outside])).toEqual([
      [8, 8, 1],
      [9, 8, 8],
    ]);
    expect(pairs[0].topFlows).toEqual([flow('192.0.2.1', 'deny', 4)]);
    expect(pairs[1].topFlows).toEqual([]);
  });

  it('finds nothing between members that agree on every pattern', () => {
    expect(pairDisagreements([cohort], [8]).map((p) => p.otherId)).toEqual([7]);
  });

  it('adds a pair up across cohorts (before and after a third experiment started)', () => {
    const before = { configurationIds: [7, 8], masks: [{ mask: 0b01, events: 2 }] };
    const [pair] = pairDisagreements([before, cohort], [7], stored).filter((p) => p.otherId === 8);
    expect([pair.events, pair.outside]).toEqual([10, 3]);
  });

  it('lists the pairs with most events first', () => {
    const pairs = pairDisagreements(
      [
        {
          configurationIds: [1, 3, 2],
          masks: [
            { mask: 0b001, events: 2 },
            { mask: 0b100, events: 1 },
          ],
        },
      ],
      [1],
    );
    // 1 and 2 differ on both patterns (3 events), 1 and 3 on the first only (2).
    expect(pairs.map((p) => [p.otherId, p.events])).toEqual([
      [2, 3],
      [3, 2],
    ]);
  });
});
