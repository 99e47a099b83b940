import { PREVIEW_REPORT_TOP } from '@rollout/contracts';

/**
 * Cross-experiment disagreement, read from cohorts: the experiments ACTIVE together on a live
 * policy version, whose events the traffic path tallies by verdict pattern (bit i set: the
 * cohort's i-th configuration denies), only where they do not all agree. Two members disagree
 * on exactly the events whose pattern differs in their two bits, so every pair's figures are
 * derived here, when a report is read, and nothing at ingest is per pair.
 */

/** A cohort as stored: its configurations in bit order, events by pattern, and its kept flows. */
export interface StoredCohort {
  configurationIds: readonly number[];
  masks: readonly { mask: number; events: number }[];
  flows: readonly StoredCohortFlow[];
}

export interface StoredCohortFlow {
  direction: 'INGRESS' | 'EGRESS';
  srcIp: string;
  destIp: string;
  protocol: string;
  /** -1 for connections without ports. */
  destPort: number;
  mask: number;
  count: number;
}

/** What configuration `configurationId` and another member (`otherId`) decide differently. */
export interface PairDisagreement {
  configurationId: number;
  otherId: number;
  events: number;
  /** Of `events`, those in flows the cohorts did not keep. */
  outside: number;
  /** The PREVIEW_REPORT_TOP flows with most such events (`action`: this configuration's). */
  topFlows: PairDisagreementFlow[];
}

export interface PairDisagreementFlow extends Omit<StoredCohortFlow, 'mask'> {
  action: 'allow' | 'deny';
}

const bit = (mask: number, i: number) => (mask >>> i) & 1;

/** Every pair (one of `configurationIds`, another member of a cohort holding it), most events first. */
export function pairDisagreements(
  cohorts: readonly StoredCohort[],
  configurationIds: readonly number[],
  top = PREVIEW_REPORT_TOP,
): PairDisagreement[] {
  const wanted = new Set(configurationIds);
  const pairs = new Map<string, PairDisagreement & { flows: Map<string, PairDisagreementFlow> }>();
  const pairOf = (configurationId: number, otherId: number) => {
    const key = `${configurationId},${otherId}`;
    let pair = pairs.get(key);
    if (!pair)
      pairs.set(
        key,
        (pair = {
          configurationId,
          otherId,
          events: 0,
          outside: 0,
          topFlows: [],
          flows: new Map(),
        }),
      );
    return pair;
  };
  for (const { configurationIds: members, masks, flows } of cohorts) {
    members.forEach((configurationId, i) => {
      if (!wanted.has(configurationId)) return;
      members.forEach((otherId, j) => {
        if (i === j) return;
        const pair = pairOf(configurationId, otherId);
        for (const { mask, events } of masks)
          if (bit(mask, i) !== bit(mask, j)) pair.events += events;
        for (const flow of flows) {
          if (bit(flow.mask, i) === bit(flow.mask, j)) continue;
          const action = bit(flow.mask, i) ? 'deny' : 'allow';
          const key = `${flow.direction}|${flow.srcIp}|${flow.destIp}|${flow.protocol}|${flow.destPort}|${action}`;
          const known = pair.flows.get(key);
          if (known) known.count += flow.count;
          else {
            const { mask: _mask, ...connection } = flow;
            pair.flows.set(key, { ...connection, action });
          }
        }
      });
    });
  }
  return [...pairs.values()]
    .filter((pair) => pair.events > 0)
    .map(({ flows, ...pair }) => {
      const all = [...flows.values()];
      const kept = all.reduce((sum, flow) => sum + flow.count, 0);
      return {
        ...pair,
        outside: pair.events - kept,
        topFlows: all.sort(byCountThenFlow).slice(0, top),
      };
    })
    .sort((a, b) => b.events - a.events || a.otherId - b.otherId);
}

const byCountThenFlow = (a: PairDisagreementFlow, b: PairDisagreementFlow) =>
  b.count - a.count ||
  compare(a.direction, b.direction) ||
  compare(a.srcIp, b.srcIp) ||
  compare(a.destIp, b.destIp) ||
  compare(a.protocol, b.protocol) ||
  a.destPort - b.destPort ||
  compare(a.action, b.action);

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
