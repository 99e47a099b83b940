export { changedFields, diffPolicyFields, diffRules } from './rule-diff';
export type { StructuralDiff } from './rule-diff';
export { normalLayer4, normalRanges, normalizeRule } from './normalize';
export type { NormalRule } from './normalize';
export { describeRanges, layer4Text, summarize, verdictChanges } from './verdict-changes';
