import {
  type AnalysisTarget,
  type DifferingRegion,
  type FirewallRule,
  type SemanticDiff,
  type VerdictChange,
  MATCH_FIELD_WORDS,
  type RuleMatch,
} from '@rollout/contracts';
import { analyzeExperiment } from '../analysis/analyze';
import { MATCH_FIELDS } from '../match-fields';

/** The match fields in the order a sentence says them. */
const SENTENCE = Object.keys(MATCH_FIELD_WORDS) as (keyof RuleMatch)[];

export function verdictChanges(
  from: readonly FirewallRule[],
  to: readonly FirewallRule[],
  maxRegions?: number,
): SemanticDiff {
  const analysis = analyzeExperiment({ rules: from }, { rules: to }, '', { maxRegions });
  const nowDenied: VerdictChange[] = [];
  const nowAllowed: VerdictChange[] = [];
  for (const region of analysis.differingRegions) {
    const denied = region.experimentVerdict.action === 'deny';
    (denied ? nowDenied : nowAllowed).push({ summary: summarize(region), region });
  }
  return {
    nowDenied,
    nowAllowed,
    truncated: !analysis.complete || analysis.regionsOmitted > 0,
  };
}

/** "tcp/22 from 0.0.0.0/0 is now denied, except 10.0.0.0/8" */
export function summarize(region: DifferingRegion): string {
  const verdict = region.experimentVerdict.action === 'deny' ? 'denied' : 'allowed';
  const fields = SENTENCE.map((name) => MATCH_FIELDS[name].summary(region));
  const parts = [
    region.direction === 'EGRESS' ? 'outgoing' : '',
    ...fields.map((field) => field.text),
    targetText(region.target),
    `is now ${verdict}`,
  ].filter(Boolean);
  const excepted = fields.filter((field) => field.except);
  const exceptions =
    excepted.length > 1
      ? excepted.map((field) => `${field.preposition} ${field.except}`).join('; ')
      : excepted[0]?.except;
  return `${parts.join(' ')}${exceptions ? `, except ${exceptions}` : ''}`;
}

function targetText(target: AnalysisTarget | undefined): string {
  if (!target) return '';
  const parts = [
    ...(target.anyTagOf ?? []).map((tags) => `tagged ${tags.join(' or ')}`),
    ...(target.tagsAbsent?.length ? [`not tagged ${target.tagsAbsent.join(' or ')}`] : []),
  ];
  return parts.length ? `to instances ${parts.join(' and ')}` : '';
}
