import type { PolicyContent, RuleDiff, RuleDiffSide } from '@rollout/contracts';
import { diffPolicyFields, diffRules, verdictChanges } from '@rollout/domain/firewall';

/** What a resource holds as a name, a version and times: what a commit does not carry over. */
const IDENTITY_FIELDS = new Set(['name', 'etag', 'createTime', 'updateTime']);

/** The part of a policy a commit or a rollback replaces: every field but its identity. */
export function contentOf(resource: PolicyContent): PolicyContent {
  return Object.fromEntries(
    Object.entries(resource).filter(([key]) => !IDENTITY_FIELDS.has(key)),
  ) as unknown as PolicyContent;
}

/**
 * The diff clients read, of the whole resource from one side to the other: the policy's own
 * fields that differ, the rules added, removed and changed (matched by priority, compared after
 * normalisation) and the regions of traffic whose verdict changes.
 */
export function ruleDiff(
  from: RuleDiffSide & { content: PolicyContent },
  to: RuleDiffSide & { content: PolicyContent },
): RuleDiff {
  const { content: fromContent, ...fromSide } = from;
  const { content: toContent, ...toSide } = to;
  const before = contentOf(fromContent);
  const after = contentOf(toContent);
  return {
    from: fromSide,
    to: toSide,
    policyFields: diffPolicyFields(before, after),
    ...diffRules(before.rules, after.rules),
    semantic: verdictChanges(before.rules, after.rules),
  };
}
