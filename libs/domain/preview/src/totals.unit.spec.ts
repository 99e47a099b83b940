import { PREVIEW_REPORT_TRANSITIONS, type PreviewVerdict } from '@rollout/contracts';
import { Outcome, memberTransitions, storedOutcome } from './outcome';
import { ConfigurationTotals, type TransitionTally, ruleCounts, ruleTransitionsOf } from './totals';

const allow = (rulePriority: number | null): PreviewVerdict => ({
  action: 'allow',
  rulePriority,
  implied: rulePriority === null,
});
const deny = (rulePriority: number | null): PreviewVerdict => ({
  action: 'deny',
  rulePriority,
  implied: rulePriority === null,
});
const at = (s: number) => Date.parse('2025-01-01T00:00:00Z') + s * 1000;
/** A one-experiment cohort's outcomes, one event each (equal verdicts merged as the store merges them). */
const outcomesOf = (...decisions: [PreviewVerdict, PreviewVerdict][]) => {
  const outcomes = new Map<string, ReturnType<typeof storedOutcome> & { count: number }>();
  for (const [live, experiment] of decisions) {
    const stored = storedOutcome(new Outcome(0, live, [experiment]));
    const known = outcomes.get(stored.key);
    if (known) known.count++;
    else outcomes.set(stored.key, { ...stored, count: 1 });
  }
  return outcomes.values();
};
const outcome = (
  live: PreviewVerdict,
  experiment: PreviewVerdict,
  eventTimeMs = at(0),
): [PreviewVerdict, PreviewVerdict, number] => [live, experiment, eventTimeMs];

describe('ConfigurationTotals', () => {
  it('puts every evaluation in exactly one of the four outcomes', () => {
    const totals = new ConfigurationTotals();
    totals.add(...outcome(allow(10), deny(5)));
    totals.add(...outcome(allow(10), deny(5)));
    totals.add(...outcome(deny(null), allow(7)));
    totals.add(...outcome(allow(10), allow(10)));
    totals.add(...outcome(deny(null), deny(null)));
    totals.add(...outcome(deny(null), deny(5)));
    expect(totals).toMatchObject({
      evaluated: 6,
      changed: 3,
      allowToDeny: 2,
      denyToAllow: 1,
      unchangedAllow: 1,
      unchangedDeny: 2,
    });
    expect(totals.evaluated).toBe(
      totals.allowToDeny + totals.denyToAllow + totals.unchangedAllow + totals.unchangedDeny,
    );
  });

  it('counts rule transitions, the implied rules apart by action, and shows stored rule counts most frequent first', () => {
    const transitions = memberTransitions(
      outcomesOf([allow(10), deny(null)], [allow(null), deny(null)], [allow(10), deny(null)]),
      0,
    );
    expect(transitions).toEqual([
      {
        livePriority: 10,
        liveAction: 'allow',
        experimentPriority: -1,
        experimentAction: 'deny',
        count: 2,
      },
      {
        livePriority: -1,
        liveAction: 'allow',
        experimentPriority: -1,
        experimentAction: 'deny',
        count: 1,
      },
    ]);
    expect(
      ruleCounts([
        { priority: 5, action: 'deny', count: 1 },
        { priority: -1, action: 'deny', count: 2 },
      ]),
    ).toEqual([
      { rulePriority: null, implied: true, action: 'deny', count: 2 },
      { rulePriority: 5, implied: false, action: 'deny', count: 1 },
    ]);
  });

  it('keeps the first and last event time, whatever the order of arrival', () => {
    const totals = new ConfigurationTotals();
    for (const s of [30, 5, 60, 10]) totals.add(...outcome(allow(1), allow(1), at(s)));
    expect([totals.firstEventMs, totals.lastEventMs]).toEqual([at(5), at(60)]);
  });

  it('merges equal rules however many verdict objects stand for them', () => {
    expect(memberTransitions(outcomesOf([allow(7), deny(1)], [allow(7), deny(1)]), 0)).toEqual([
      {
        livePriority: 7,
        liveAction: 'allow',
        experimentPriority: 1,
        experimentAction: 'deny',
        count: 2,
      },
    ]);
  });

  it('reads one member of a larger cohort by its column', () => {
    const outcome = new Outcome(0, allow(7), [deny(1), allow(7), deny(null)]);
    const outcomes = [{ ...storedOutcome(outcome), count: 4 }];
    expect(memberTransitions(outcomes, 1)).toEqual([
      {
        livePriority: 7,
        liveAction: 'allow',
        experimentPriority: 7,
        experimentAction: 'allow',
        count: 4,
      },
    ]);
    expect(memberTransitions(outcomes, 2)[0]).toMatchObject({
      experimentPriority: -1,
      experimentAction: 'deny',
    });
  });

  it('counts rule transitions whose margins by action are the verdict counts', () => {
    const decisions: [PreviewVerdict, PreviewVerdict][] = [
      [allow(10), deny(5)],
      [allow(10), deny(5)],
      [allow(10), allow(10)],
      [deny(null), allow(7)],
      [deny(null), deny(null)],
    ];
    const totals = new ConfigurationTotals();
    for (const [live, experiment] of decisions) totals.add(...outcome(live, experiment));
    const cells = memberTransitions(outcomesOf(...decisions), 0);
    expect(cells).toEqual([
      {
        livePriority: 10,
        liveAction: 'allow',
        experimentPriority: 5,
        experimentAction: 'deny',
        count: 2,
      },
      {
        livePriority: 10,
        liveAction: 'allow',
        experimentPriority: 10,
        experimentAction: 'allow',
        count: 1,
      },
      {
        livePriority: -1,
        liveAction: 'deny',
        experimentPriority: 7,
        experimentAction: 'allow',
        count: 1,
      },
      {
        livePriority: -1,
        liveAction: 'deny',
        experimentPriority: -1,
        experimentAction: 'deny',
        count: 1,
      },
    ]);
    const sum = (pick: (c: (typeof cells)[number]) => boolean) =>
      cells.filter(pick).reduce((n, c) => n + c.count, 0);
    expect(sum((c) => c.livePriority === 10)).toBe(3);
    expect(sum((c) => c.liveAction === 'allow' && c.experimentAction === 'deny')).toBe(
      totals.allowToDeny,
    );
    expect(sum((c) => c.liveAction === 'deny' && c.experimentAction === 'allow')).toBe(
      totals.denyToAllow,
    );
  });

  it('counts by the minute of the event time, changed verdicts by direction', () => {
    const totals = new ConfigurationTotals();
    totals.add(...outcome(allow(1), deny(2), at(0)));
    totals.add(...outcome(allow(1), allow(1), at(59)));
    totals.add(...outcome(deny(3), allow(4), at(60)));
    totals.add(...outcome(allow(1), allow(1), at(3600)));
    expect([...totals.minutes]).toEqual([
      [at(0), { evaluated: 2, changed: 1, allowToDeny: 1, denyToAllow: 0 }],
      [at(60), { evaluated: 1, changed: 1, allowToDeny: 0, denyToAllow: 1 }],
      [at(3600), { evaluated: 1, changed: 0, allowToDeny: 0, denyToAllow: 0 }],
    ]);
  });
});

describe('ruleTransitionsOf', () => {
  const tally = (
    livePriority: number,
    experimentPriority: number,
    count: number,
    liveAction: 'allow' | 'deny' = 'allow',
  ): TransitionTally => ({
    livePriority,
    liveAction,
    experimentPriority,
    experimentAction: liveAction === 'allow' ? 'deny' : 'allow',
    count,
  });

  it('shows the most frequent cells first, ties by live then experiment rule (implied first), then by actions', () => {
    const { ruleTransitions = [], ruleTransitionsOmitted } = ruleTransitionsOf([
      tally(20, 1, 3),
      tally(10, 2, 3),
      tally(-1, 5, 3),
      tally(10, 1, 3),
      tally(10, 1, 3, 'deny'),
      tally(30, 1, 9),
    ]);
    expect(
      ruleTransitions.map((c) => [
        c.count,
        c.live.rulePriority,
        c.experiment.rulePriority,
        c.live.action,
      ]),
    ).toEqual([
      [9, 30, 1, 'allow'],
      [3, null, 5, 'allow'],
      [3, 10, 1, 'allow'],
      [3, 10, 1, 'deny'],
      [3, 10, 2, 'allow'],
      [3, 20, 1, 'allow'],
    ]);
    expect(ruleTransitions[1].live).toEqual({ action: 'allow', rulePriority: null, implied: true });
    expect(ruleTransitionsOmitted).toBe(0);
  });

  it(`keeps the ${PREVIEW_REPORT_TRANSITIONS} most frequent cells and says how many it leaves out`, () => {
    const tallies = Array.from({ length: PREVIEW_REPORT_TRANSITIONS + 3 }, (_, i) =>
      tally(i, 0, i + 1),
    );
    const { ruleTransitions = [], ruleTransitionsOmitted } = ruleTransitionsOf(tallies);
    expect(ruleTransitions).toHaveLength(PREVIEW_REPORT_TRANSITIONS);
    expect(ruleTransitions[0].count).toBe(PREVIEW_REPORT_TRANSITIONS + 3);
    expect(ruleTransitions.at(-1)?.count).toBe(4);
    expect(ruleTransitionsOmitted).toBe(3);
  });
});
