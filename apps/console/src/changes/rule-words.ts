import {
  type AnalysisVerdict,
  type DifferingRegion,
  type FirewallRule,
  type PreviewVerdict,
  type RuleDiff,
  matchWords,
  regionMatchWords,
} from '@rollout/contracts';

/** A deciding rule in a few words: "rule 300 (allow)", or "implied deny". */
export const ruleLabel = (verdict: Pick<PreviewVerdict, 'rulePriority' | 'implied' | 'action'>) =>
  verdict.implied || verdict.rulePriority === null
    ? `implied ${verdict.action}`
    : `rule ${verdict.rulePriority} (${verdict.action})`;

/** "INGRESS deny tcp/22 from 0.0.0.0/0 to anywhere" (with target tags and "disabled" when so). */
export function describeRule(rule: FirewallRule): string {
  const tags = rule.targetTags?.length ? `, on instances tagged ${rule.targetTags.join(', ')}` : '';
  return `${rule.direction} ${rule.action} ${matchWords(rule.match)}${tags}${rule.disabled ? ' (disabled)' : ''}`;
}

/** A rule field's value in a diff: lists joined, objects as compact JSON, absence said. */
export function formatFieldValue(value: unknown): string {
  if (value === undefined || value === null) return '(none)';
  if (Array.isArray(value) && value.every((item) => typeof item !== 'object'))
    return value.length ? value.join(', ') : '(empty)';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

const verdictText = (verdict: AnalysisVerdict) =>
  verdict.implied || verdict.rulePriority === null
    ? `${verdict.action} (implied rule)`
    : `${verdict.action} (rule ${verdict.rulePriority})`;

function regionTraffic(region: DifferingRegion): string {
  const tags = region.target?.anyTagOf?.length
    ? `, to instances tagged ${region.target.anyTagOf.map((any) => any.join(' or ')).join(' and ')}`
    : '';
  const untagged = region.target?.tagsAbsent?.length
    ? `, to instances not tagged ${region.target.tagsAbsent.join(', ')}`
    : '';
  return `${region.direction} ${regionMatchWords(region)}${tags}${untagged}`;
}

/** "INGRESS tcp/22 from 0.0.0.0/0 to anywhere: allow (rule 1000) becomes deny (rule 900)". */
export function describeRegion(region: DifferingRegion): string {
  return `${regionTraffic(region)}: ${verdictText(region.liveVerdict)} becomes ${verdictText(
    region.experimentVerdict,
  )}`;
}

/** Whether a region's change opens traffic (deny → allow) or closes it. */
export const regionOpens = (region: DifferingRegion) =>
  region.liveVerdict.action === 'deny' && region.experimentVerdict.action === 'allow';

const plural = (count: number, one: string, many = `${one}s`) =>
  `${count} ${count === 1 ? one : many}`;

/** Policy fields are named only when some differ. */
export function diffCountsText(diff: RuleDiff): string {
  const fields = diff.policyFields?.length ?? 0;
  const rewritten = diff.rewritten?.length ?? 0;
  return [
    ...(fields ? [`${plural(fields, 'policy field')} changed`] : []),
    `${plural(diff.added.length, 'rule')} added`,
    `${diff.removed.length} removed`,
    `${diff.changed.length} changed`,
    `${diff.unchangedCount} unchanged${rewritten ? ` (${rewritten} only rewritten)` : ''}`,
  ].join(', ');
}
