/** Two members disagree on exactly the events whose pattern differs in their bits: nothing at ingest is per pair. */

export interface StoredCohort {
  configurationIds: readonly number[];
  masks: readonly { mask: number; events: number }[];
}

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

export interface PairDisagreement {
  configurationId: number;
  otherId: number;
  events: number;
  outside: number;
  /** `action`: this configuration's. */
  topFlows: readonly PairDisagreementFlow[];
}

const bit = (mask: number, i: number) => (mask >>> i) & 1;

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
