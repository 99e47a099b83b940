import {
  PREVIEW_REPORT_TOP,
  type PreviewConfigurationReport,
  type PreviewFlow,
  type PreviewReport,
  parseExperimentName,
  policyPreviewLogSubject,
  previewLogSubject,
} from '@rollout/contracts';
import { analyzeExperiment, type CompiledPolicy } from '@rollout/domain/firewall';
import { addToFlow, type FlowTally } from './flows';
import type { BatchOutcome } from './evaluation';
import { memberTransitions, type StoredOutcome } from './outcome';
import { memberFlows } from './view-tally';
import { recordKeys } from './records';
import type { HeldVersions, PolicyView } from './views';
import { coverageOf, liveRuleUsageOf } from './coverage';
import { reportTimeBuckets } from './time-buckets';
import { ConfigurationTotals, MINUTE_MS, ruleCounts, ruleTransitionsOf } from './totals';

/** The live policy and the one experiment as held now, whatever its preview state. */
export function backtestView(
  experimentName: string,
  versions: HeldVersions,
  compile: (policy: { rules?: HeldVersions['liveRules'] }) => CompiledPolicy,
): PolicyView | undefined {
  const name = parseExperimentName(experimentName);
  if (!name) return undefined;
  return {
    name: name.policyName,
    etag: versions.liveEtag,
    live: compile({ rules: [...versions.liveRules] }),
    logSubject: policyPreviewLogSubject(name.project, name.location, name.policy),
    active: [
      {
        name: experimentName,
        etag: versions.experimentEtag,
        logSubject: previewLogSubject(name.project, name.location, name.policy, name.experiment),
        policy: compile({ rules: [...versions.experimentRules] }),
        liveEtag: versions.liveEtag,
        keys: recordKeys(
          experimentName,
          versions.experimentEtag,
          name.policyName,
          versions.liveEtag,
        ),
      },
    ],
  };
}

/** In memory: a backtest writes none of the live report's tables. */
export class BacktestTally {
  readonly totals = new ConfigurationTotals();
  readonly flows = new Map<string, FlowTally>();
  private readonly outcomes = new Map<string, StoredOutcome>();
  changedOutsideFlows = 0;

  constructor(private readonly maxFlows: number) {}

  add(batch: Pick<BatchOutcome, 'configurations' | 'cohorts'>): void {
    for (const cohort of batch.cohorts) {
      for (const [key, outcome] of cohort.outcomes) {
        const known = this.outcomes.get(key);
        if (known) known.count += outcome.count;
        else this.outcomes.set(key, { ...outcome });
      }
      for (const flow of memberFlows(cohort.flows.values(), 0)) this.addFlow(flow);
    }
    for (const configuration of batch.configurations) this.totals.addAll(configuration.totals);
  }

  private addFlow(flow: FlowTally): void {
    const key = `${flow.direction}|${flow.srcIp}|${flow.destIp}|${flow.protocol}|${flow.destPort}|${flow.live.rulePriority}|${flow.experiment.rulePriority}`;
    const kept = this.flows.get(key);
    if (kept) addToFlow(kept, flow);
    else if (this.flows.size < this.maxFlows) this.flows.set(key, flow);
    else this.changedOutsideFlows += flow.count;
  }

  report(
    experimentName: string,
    versions: HeldVersions,
  ): { report: PreviewReport; topChangedFlows: PreviewFlow[] } {
    const { totals } = this;
    if (totals.evaluated === 0)
      return { report: { name: experimentName, configurations: [] }, topChangedFlows: [] };
    const tallies = memberTransitions(this.outcomes.values(), 0);
    const margin = (side: 'live' | 'experiment') => {
      const counts = new Map<string, { priority: number; action: string; count: number }>();
      for (const t of tallies) {
        const [priority, action] =
          side === 'live'
            ? [t.livePriority, t.liveAction]
            : [t.experimentPriority, t.experimentAction];
        const key = `${priority}/${action}`;
        const known = counts.get(key);
        if (known) known.count += t.count;
        else counts.set(key, { priority, action, count: t.count });
      }
      return ruleCounts([...counts.values()]);
    };
    const flows = [...this.flows.values()];
    const experimentRules = margin('experiment');
    const liveRules = margin('live');
    const configuration: PreviewConfigurationReport = {
      experimentEtag: versions.experimentEtag,
      livePolicyEtag: versions.liveEtag,
      evaluated: totals.evaluated,
      changed: totals.changed,
      allowToDeny: totals.allowToDeny,
      denyToAllow: totals.denyToAllow,
      unchangedAllow: totals.unchangedAllow,
      unchangedDeny: totals.unchangedDeny,
      liveRules,
      experimentRules,
      topChangedSources: top(flows, (f) => displayAddress(f.srcIp), compareAddresses).map(
        ([srcIp, count]) => ({ srcIp, count }),
      ),
      topChangedDestinationPorts: top(
        flows.filter((f) => f.destPort !== undefined),
        (f) => `${f.protocol}/${f.destPort}`,
        comparePorts,
      ).map(([key, count]) => ({
        protocol: key.slice(0, key.lastIndexOf('/')),
        destPort: Number(key.slice(key.lastIndexOf('/') + 1)),
        count,
      })),
      flows: flows.length,
      changedOutsideFlows: this.changedOutsideFlows,
      ...ruleTransitionsOf(tallies),
      timeBuckets: reportTimeBuckets(
        [...totals.minutes].map(([startMs, bucket]) => ({
          ...bucket,
          startMs,
          widthMs: MINUTE_MS,
        })),
        totals.lastEventMs,
      ),
      coverage: coverageOf({
        analysis: analyzeExperiment(
          { rules: versions.liveRules },
          { rules: versions.experimentRules },
          versions.liveEtag,
        ),
        experimentRules: versions.experimentRules,
        flows: flows.map((f) => ({
          direction: f.direction,
          srcIp: f.srcIp,
          destIp: f.destIp,
          protocol: f.protocol,
          ...(f.destPort === undefined ? {} : { destPort: f.destPort }),
          count: f.count,
        })),
        changedOutsideFlows: this.changedOutsideFlows,
        experimentRuleCounts: experimentRules,
      }),
      // A backtest reads the whole retained window: this is the live policy's usage over it.
      liveRuleUsage: liveRuleUsageOf({
        livePolicyEtag: versions.liveEtag,
        liveRules: versions.liveRules,
        liveRuleCounts: liveRules,
      }),
      firstEventTime: new Date(totals.firstEventMs).toISOString(),
      lastEventTime: new Date(totals.lastEventMs).toISOString(),
    };
    const topChangedFlows = flows
      .sort((a, b) => b.count - a.count || b.lastMs - a.lastMs)
      .slice(0, PREVIEW_REPORT_TOP)
      .map((f): PreviewFlow => ({
        experimentEtag: versions.experimentEtag,
        livePolicyEtag: versions.liveEtag,
        direction: f.direction,
        srcIp: displayAddress(f.srcIp),
        destIp: displayAddress(f.destIp),
        protocol: f.protocol,
        ...(f.destPort === undefined ? {} : { destPort: f.destPort }),
        transition: f.live.action === 'allow' ? 'ALLOW_TO_DENY' : 'DENY_TO_ALLOW',
        liveResult: f.live,
        experimentResult: f.experiment,
        count: f.count,
        firstEventTime: new Date(f.firstMs).toISOString(),
        lastEventTime: new Date(f.lastMs).toISOString(),
        samples: f.samples,
      }));
    return { report: { name: experimentName, configurations: [configuration] }, topChangedFlows };
  }
}

function top(
  flows: readonly FlowTally[],
  keyOf: (flow: FlowTally) => string,
  order: (a: string, b: string) => number,
): [string, number][] {
  const sums = new Map<string, number>();
  for (const flow of flows) sums.set(keyOf(flow), (sums.get(keyOf(flow)) ?? 0) + flow.count);
  return [...sums].sort((a, b) => b[1] - a[1] || order(a[0], b[0])).slice(0, PREVIEW_REPORT_TOP);
}

const comparePorts = (a: string, b: string) => {
  const [pa, na] = [a.slice(0, a.lastIndexOf('/')), Number(a.slice(a.lastIndexOf('/') + 1))];
  const [pb, nb] = [b.slice(0, b.lastIndexOf('/')), Number(b.slice(b.lastIndexOf('/') + 1))];
  return pa < pb ? -1 : pa > pb ? 1 : na - nb;
};

/** Postgres' inet order: IPv4 before IPv6, then by value. */
function addressKey(text: string): number[] {
  return text.includes(':') ? [6, ...expandIpv6(text)] : [4, ...text.split('.').map(Number)];
}

function compareAddresses(a: string, b: string): number {
  const [x, y] = [addressKey(a), addressKey(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++)
    if (x[i] !== y[i]) return (x[i] ?? -1) - (y[i] ?? -1);
  return 0;
}

function expandIpv6(text: string): number[] {
  const [head, tail] = text.split('::');
  const groups = (part?: string) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const [h, t] = [groups(head), groups(tail)];
  return tail === undefined
    ? h
    : [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
}

/** As Postgres writes an inet: IPv6 in RFC 5952's short form. */
export function displayAddress(text: string): string {
  if (!text.includes(':')) return text;
  const groups = expandIpv6(text);
  let [best, bestLength] = [-1, 1];
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) [best, bestLength] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLength).join(':')}`;
}
