import type { PolicyContent, RuleDiff, RuleDiffSide } from '@rollout/contracts';
import { diffPolicyFields, diffRules, verdictChanges } from '@rollout/domain/firewall';

const IDENTITY_FIELDS = new Set(['name', 'etag', 'createTime', 'updateTime']);

export function contentOf(resource: PolicyContent): PolicyContent {
  return Object.fromEntries(
    Object.entries(resource).filter(([key]) => !IDENTITY_FIELDS.has(key)),
  ) as unknown as PolicyContent;
}

/** Rules are matched by priority and compared after normalisation. */
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
