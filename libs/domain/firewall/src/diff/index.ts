export { changedFields, diffPolicyFields, diffRules } from './rule-diff';
export type { StructuralDiff } from './rule-diff';
export { normalizeRule } from './normalize';
export type { NormalRule } from './normalize';
export { describeRanges, layer4Text } from './region-words';
export { summarize, verdictChanges } from './verdict-changes';
