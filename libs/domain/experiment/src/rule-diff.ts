import type { FirewallRule, RuleDiff, RuleDiffSide } from '@rollout/contracts';
import { diffRules, verdictChanges } from '@rollout/domain/firewall';

/**
 * The diff clients read: the rules added, removed and changed (matched by priority) and the
 * regions of traffic whose verdict changes, from one side's rules to the other's.
 */
export function ruleDiff(
  from: RuleDiffSide & { rules: readonly FirewallRule[] },
  to: RuleDiffSide & { rules: readonly FirewallRule[] },
): RuleDiff {
  const { rules: fromRules, ...fromSide } = from;
  const { rules: toRules, ...toSide } = to;
  return {
    from: fromSide,
    to: toSide,
    ...diffRules(fromRules, toRules),
    semantic: verdictChanges(fromRules, toRules),
  };
}
