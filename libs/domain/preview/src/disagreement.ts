/**
 * Cross-experiment disagreement, read from cohorts: the experiments ACTIVE together on a live
 * policy version, whose events the traffic path tallies by verdict pattern (bit i set: the
 * cohort's i-th configuration denies), only where they do not all agree. Two members disagree
 * on exactly the events whose pattern differs in their two bits, so every pair's figures are
 * derived here, when a report is read, and nothing at ingest is per pair.
 */

/** A cohort as stored: its configurations in bit order, and its events by pattern. */
export interface StoredCohort {
  configurationIds: readonly number[];
  masks: readonly { mask: number; events: number }[];
}

/**
 * A pair's flows as the store aggregates them over every cohort holding both (the cohorts keep
 * their disagreeing connections by pattern; the pair's are those whose two bits differ, with this
 * configuration's action): the events in all of them (`kept`) and the PREVIEW_REPORT_TOP with
 * most events, most first, ties by connection then action.
 */
export interface StoredPairFlows {
  configurationId: number;
  otherId: number;
  kept: number;
  top: readonly PairDisagreementFlow[];
}

export interface PairDisagreementFlow {
  direction: 'INGRESS' | 'EGRESS';
  srcIp: string;
  destIp: string;
  protocol: string;
  /** -1 for connections without ports. */
  destPort: number;
  count: number;
  action: 'allow' | 'deny';
}

/** What configuration `configurationId` and another member (`otherId`) decide differently. */
export interface PairDisagreement {
  configurationId: number;
  otherId: number;
  events: number;
  /** Of `events`, those in flows the cohorts did not keep. */
  outside: number;
  /** The PREVIEW_REPORT_TOP flows with most such events (`action`: this configuration's). */
  topFlows: readonly PairDisagreementFlow[];
}

const bit = (mask: number, i: number) => (mask >>> i) & 1;

/**
 * Every pair (one of `configurationIds`, another member of a cohort holding it) that disagrees
 * on some event, most events first: its events from the cohorts' patterns, its flows as stored.
 */
export function pairDisagreements(
  cohorts: readonly StoredCohort[],
  configurationIds: readonly number[],
  flows: readonly StoredPairFlows[] = [],
): PairDisagreement[] {
  const wanted = new Set(configurationIds);
  const events = new Map<string, { configurationId: number; otherId: number; events: number }>();
  for (const { configurationIds: members, masks } of cohorts) {
    members.forEach((configurationId, i) => {
      if (!wanted.has(configurationId)) return;
      members.forEach((otherId, j) => {
        if (i === j) return;
        const key = `${configurationId},${otherId}`;
        let pair = events.get(key);
        if (!pair) events.set(key, (pair = { configurationId, otherId, events: 0 }));
        for (const { mask, events: n } of masks)
          if (bit(mask, i) !== bit(mask, j)) pair.events += n;
      });
    });
  }
  const flowsOf = new Map(flows.map((f) => [`${f.configurationId},${f.otherId}`, f]));
  return [...events.entries()]
    .filter(([, pair]) => pair.events > 0)
    .map(([key, pair]) => {
      const stored = flowsOf.get(key);
      return { ...pair, outside: pair.events - (stored?.kept ?? 0), topFlows: stored?.top ?? [] };
    })
    .sort((a, b) => b.events - a.events || a.otherId - b.otherId);
}
