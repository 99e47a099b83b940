import type {
  ListPreviewFlowsResponse,
  PreviewConfigurationReport,
  PreviewFlow,
  PreviewReport,
} from '@rollout/contracts';

/**
 * A preview of 100,000 changed flows, as the gateway would answer it, for the console's
 * first-screen measure: seeding that many distinct flows through the evaluator would add at
 * least 100,000 published and evaluated events to every run (see docs/console.md), so the e2e
 * answers the report and its flow pages with these (Playwright's route()); every other call
 * goes to the real system.
 */
export const VOLUME_FLOWS = 100_000;
const EVENTS_PER_FLOW = 3;

const address = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;

export function volumeFlow(n: number, etags: { experiment: string; live: string }): PreviewFlow {
  const time = new Date(Date.UTC(2026, 10, 28, 12, 0, 0) + n * 100).toISOString();
  return {
    experimentEtag: etags.experiment,
    livePolicyEtag: etags.live,
    direction: 'INGRESS',
    srcIp: address(n),
    destIp: '10.0.0.5',
    protocol: 'tcp',
    destPort: 22,
    transition: 'ALLOW_TO_DENY',
    liveResult: { action: 'allow', rulePriority: 1000, implied: false },
    experimentResult: { action: 'deny', rulePriority: 900, implied: false },
    count: EVENTS_PER_FLOW,
    firstEventTime: time,
    lastEventTime: time,
    samples: [{ trafficEventId: `volume-${n}`, eventTime: time, srcPort: 40_000 + (n % 20_000) }],
  };
}

/** The report of that preview: 100,000 flows of 3 events, 6 hours of minute buckets. */
export function volumeReport(
  name: string,
  etags: { experiment: string; live: string },
): PreviewReport {
  const changed = VOLUME_FLOWS * EVENTS_PER_FLOW;
  const unchanged = 5 * changed;
  const minutes = 360;
  const end = Date.UTC(2026, 10, 28, 18, 0, 0);
  const configuration: PreviewConfigurationReport = {
    experimentEtag: etags.experiment,
    livePolicyEtag: etags.live,
    evaluated: changed + unchanged,
    changed,
    allowToDeny: changed,
    denyToAllow: 0,
    unchangedAllow: unchanged,
    unchangedDeny: 0,
    liveRules: [
      { rulePriority: 1000, implied: false, action: 'allow', count: changed + unchanged },
    ],
    experimentRules: [
      { rulePriority: 1000, implied: false, action: 'allow', count: unchanged },
      { rulePriority: 900, implied: false, action: 'deny', count: changed },
    ],
    topChangedSources: Array.from({ length: 20 }, (_, n) => ({
      srcIp: address(n),
      count: EVENTS_PER_FLOW,
    })),
    topChangedDestinationPorts: [{ protocol: 'tcp', destPort: 22, count: changed }],
    flows: VOLUME_FLOWS,
    changedOutsideFlows: 0,
    ruleTransitions: [
      {
        live: { action: 'allow', rulePriority: 1000, implied: false },
        experiment: { action: 'deny', rulePriority: 900, implied: false },
        count: changed,
      },
      {
        live: { action: 'allow', rulePriority: 1000, implied: false },
        experiment: { action: 'allow', rulePriority: 1000, implied: false },
        count: unchanged,
      },
    ],
    ruleTransitionsOmitted: 0,
    timeBuckets: Array.from({ length: minutes }, (_, m) => ({
      startTime: new Date(end - (minutes - m) * 60_000).toISOString(),
      width: 'MINUTE' as const,
      evaluated: (changed + unchanged) / minutes,
      changed: changed / minutes,
      allowToDeny: changed / minutes,
      denyToAllow: 0,
    })),
    firstEventTime: new Date(end - minutes * 60_000).toISOString(),
    lastEventTime: new Date(end).toISOString(),
  };
  return { name, configurations: [configuration] };
}

/** One page of the listing: pageToken is the offset of its first flow. */
export function volumeFlowsPage(
  url: URL,
  etags: { experiment: string; live: string },
): ListPreviewFlowsResponse {
  const from = Number(url.searchParams.get('pageToken') ?? 0);
  const size = Number(url.searchParams.get('pageSize') ?? 50);
  const to = Math.min(VOLUME_FLOWS, from + size);
  return {
    previewFlows: Array.from({ length: to - from }, (_, i) => volumeFlow(from + i, etags)),
    ...(to < VOLUME_FLOWS ? { nextPageToken: String(to) } : {}),
  };
}
