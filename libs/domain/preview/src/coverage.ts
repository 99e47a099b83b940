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
 * Every connection in a differing region is changed, so only changed flows can touch one; events
 * outside the kept flows make "untouched" uncertain, and `exact` says so.
 */
export function coverageOf(input: {
  analysis: ExperimentAnalysis;
  experimentRules: readonly FirewallRule[];
  flows: Iterable<FlowConnection<string> & { count: number }>;
  changedOutsideFlows: number;
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

/** A disabled rule decides nothing by design, so it is marked rather than called unused. */
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
