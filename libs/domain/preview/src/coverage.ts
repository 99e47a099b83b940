import type {
  ExperimentAnalysis,
  FirewallRule,
  FlowConnection,
  PreviewCoverage,
  RuleCount,
} from '@rollout/contracts';
import { untouchedRegions } from '@rollout/domain/firewall';

/**
 * What the experiment's static analysis says about the traffic previewed in one configuration:
 * the regions where live and experiment differ that no previewed connection touched ("this change
 * also opens 10.0.0.0/8 tcp:22, which no connection used"), and the experiment's rules that
 * decided nothing. Every connection in a differing region has its verdict changed, so the changed
 * flows are the connections that can touch one; events outside the kept flows make "untouched"
 * uncertain, and `exact` says so.
 */
export function coverageOf(input: {
  analysis: ExperimentAnalysis;
  experimentRules: readonly FirewallRule[];
  /** The configuration's changed flows (all it keeps). */
  flows: Iterable<FlowConnection<string>>;
  changedOutsideFlows: number;
  /** The configuration's experiment rule counts (the transitions' margin). */
  experimentRuleCounts: readonly RuleCount[];
}): PreviewCoverage {
  const { analysis } = input;
  const decided = new Set(
    input.experimentRuleCounts.filter((r) => !r.implied && r.count > 0).map((r) => r.rulePriority),
  );
  return {
    complete: analysis.complete,
    differingRegions: analysis.differingRegions.length,
    regionsOmitted: analysis.regionsOmitted,
    untouchedRegions: untouchedRegions(analysis.differingRegions, input.flows),
    exact: input.changedOutsideFlows === 0 && analysis.regionsOmitted === 0,
    unmatchedExperimentRules: input.experimentRules
      .filter((rule) => !rule.disabled && !decided.has(rule.priority))
      .map((rule) => rule.priority)
      .sort((a, b) => a - b),
    shadowedRules: analysis.shadowedRules.map((rule) => rule.priority).sort((a, b) => a - b),
  };
}
