export { changedFields, diffRules } from './rule-diff';
export type { StructuralDiff } from './rule-diff';
export { describeRanges, layer4Text, summarize, verdictChanges } from './verdict-changes';
