import type {
  ExperimentAnalysis,
  FirewallRule,
  FlowConnection,
  LiveRuleUsage,
  PreviewCoverage,
  RuleCount,
} from '@rollout/contracts';
import { regionTraffic, summarize } from '@rollout/domain/firewall';

/**
 * What the experiment's static analysis says about the traffic previewed in one configuration:
 * the regions where live and experiment differ that no previewed connection touched ("this change
 * also opens 10.0.0.0/8 tcp:22, which no connection used"), and the experiment's rules that
 * decided nothing. Every connection in a differing region has its verdict changed, so the changed
 * flows are the connections that can touch one; events outside the kept flows make "untouched"
 * uncertain, and `exact` says so. The same pass counts each region's changed traffic, so the
 * diff's sentences carry who they hit ("tcp/22 from 0.0.0.0/0 is now denied: 592 events from 61
 * sources").
 */
export function coverageOf(input: {
  analysis: ExperimentAnalysis;
  experimentRules: readonly FirewallRule[];
  /** The configuration's changed flows (all it keeps), with their changed events. */
  flows: Iterable<FlowConnection<string> & { count: number }>;
  changedOutsideFlows: number;
  /** The configuration's experiment rule counts (the transitions' margin). */
  experimentRuleCounts: readonly RuleCount[];
}): PreviewCoverage {
  const { analysis } = input;
  const traffic = regionTraffic(analysis.differingRegions, input.flows);
  const decided = new Set(
    input.experimentRuleCounts.filter((r) => !r.implied && r.count > 0).map((r) => r.rulePriority),
  );
  return {
    complete: analysis.complete,
    differingRegions: analysis.differingRegions.length,
    regionsOmitted: analysis.regionsOmitted,
    untouchedRegions: analysis.differingRegions.filter((_, i) => traffic[i].flows === 0),
    exact: input.changedOutsideFlows === 0 && analysis.regionsOmitted === 0,
    unmatchedExperimentRules: input.experimentRules
      .filter((rule) => !rule.disabled && !decided.has(rule.priority))
      .map((rule) => rule.priority)
      .sort((a, b) => a - b),
    shadowedRules: analysis.shadowedRules.map((rule) => rule.priority).sort((a, b) => a - b),
    changedByRegion: analysis.differingRegions.map((region, i) => ({
      summary: summarize(region),
      action: region.experimentVerdict.action,
      ...traffic[i],
    })),
  };
}

/**
 * The live policy's own rule usage: each rule of the live version with the events it decided
 * (`liveRuleCounts`, the transitions' live margin), and the enabled rules that decided none. A
 * disabled rule decides nothing by design, so it is marked rather than called unused.
 */
export function liveRuleUsageOf(input: {
  livePolicyEtag: string;
  liveRules: readonly FirewallRule[];
  liveRuleCounts: readonly RuleCount[];
}): LiveRuleUsage {
  const hits = new Map<number, number>();
  let impliedHits = 0;
  for (const count of input.liveRuleCounts) {
    if (count.implied || count.rulePriority === null) impliedHits += count.count;
    else hits.set(count.rulePriority, (hits.get(count.rulePriority) ?? 0) + count.count);
  }
  const rules = [...input.liveRules]
    .sort((a, b) => a.priority - b.priority)
    .map((rule) => ({
      rulePriority: rule.priority,
      action: rule.action,
      hits: hits.get(rule.priority) ?? 0,
      ...(rule.disabled ? { disabled: true } : {}),
    }));
  return {
    livePolicyEtag: input.livePolicyEtag,
    rules,
    impliedHits,
    unusedRules: rules.filter((r) => !r.disabled && r.hits === 0).map((r) => r.rulePriority),
  };
}
