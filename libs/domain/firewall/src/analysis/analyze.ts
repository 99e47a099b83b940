/** The static analysis an experiment's preview shows: shadowed rules and differing regions. */
import type {
  DifferingRegion,
  ExperimentAnalysis,
  FirewallRule,
  ShadowedRule,
} from '@rollout/contracts';
import { MAX_DIFFERING_REGIONS } from '@rollout/contracts';
import { LABEL_FIELDS, LINE_FIELDS } from '../match-fields';
import { DirectionAnalysis, WorkLimitExceeded } from './decision-diagram';
import { EVERY_LABEL_SET, PreparedRule, prepare } from './prepared-rules';
import type { Interval } from './space';
import { toTarget } from './tags';

export { ANALYSIS_WORK_LIMIT } from './decision-diagram';

const IMPLIED = { INGRESS: 'deny', EGRESS: 'allow' } as const;

export interface AnalysisOptions {
  maxRegions?: number;
}

/** The experiment rules that decide no connection, and the regions where live and experiment actions differ. */
export function analyzeExperiment(
  live: { rules?: readonly FirewallRule[] },
  experiment: { rules?: readonly FirewallRule[] },
  livePolicyEtag: string,
  options: AnalysisOptions = {},
): ExperimentAnalysis {
  const maxRegions = options.maxRegions ?? MAX_DIFFERING_REGIONS;
  const budget = { work: 0 };
  const regions: DifferingRegion[] = [];
  const shadowedRules: ShadowedRule[] = [];
  let regionsFound = 0;
  try {
    for (const direction of ['INGRESS', 'EGRESS'] as const) {
      const liveRules = prepare(live.rules ?? [], 0, direction);
      const experimentRules = prepare(experiment.rules ?? [], 1, direction);
      const rules = [...liveRules, ...experimentRules];
      const implied = IMPLIED[direction];
      const actionOf = (i: number) => (i < 0 ? implied : rules[i].action);
      const verdictOf = (i: number) =>
        i < 0
          ? { action: implied, rulePriority: null, implied: true }
          : { action: rules[i].action, rulePriority: rules[i].priority, implied: false };
      const deciding = new Set<number>();
      const analysis = new DirectionAnalysis(
        rules,
        (l, e) => actionOf(l) !== actionOf(e),
        (_, e) => deciding.add(e),
        false,
        budget,
      );
      const found = analysis.run();
      regionsFound += found.length;
      // Only listed regions are written out: the text of the others would be thrown away.
      for (const region of found.slice(0, Math.max(0, maxRegions - regions.length))) {
        const parts = [
          ...LINE_FIELDS.map(({ name, field }) => field.region(region.keys[name]!)),
          ...LABEL_FIELDS.map(({ name, field }) =>
            field.region(region.cells[name] ?? EVERY_LABEL_SET),
          ),
        ];
        regions.push({
          direction,
          ...(Object.assign({}, ...parts) as Pick<
            DifferingRegion,
            'srcIpRanges' | 'destIpRanges' | 'layer4Configs' | 'srcSecureTags'
          >),
          ...toTarget(region.target),
          liveVerdict: verdictOf(region.live),
          experimentVerdict: verdictOf(region.experiment),
        });
      }
      experimentRules.forEach((rule, k) => {
        if (!deciding.has(liveRules.length + k))
          shadowedRules.push({
            priority: rule.priority,
            direction,
            coveredBy: coveringRules(experimentRules, k, budget),
          });
      });
    }
  } catch (error) {
    if (!(error instanceof WorkLimitExceeded)) throw error;
    return {
      livePolicyEtag,
      shadowedRules: [],
      differingRegions: [],
      regionsOmitted: 0,
      complete: false,
    };
  }
  shadowedRules.sort((a, b) => a.priority - b.priority);
  return {
    livePolicyEtag,
    shadowedRules,
    differingRegions: regions,
    regionsOmitted: regionsFound - regions.length,
    complete: true,
  };
}

function overlaps(a: readonly Interval[], b: readonly Interval[]): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i].last < b[j].first) i++;
    else if (b[j].last < a[i].first) j++;
    else return true;
  }
  return false;
}

/** The higher-priority rules that decide the connections rule k matches (it decides none itself). */
function coveringRules(
  rules: readonly PreparedRule[],
  k: number,
  budget: { work: number },
): number[] {
  const higher = rules
    .slice(0, k)
    .filter((rule) =>
      LINE_FIELDS.every(({ name }) => overlaps(rule.keys[name]!, rules[k].keys[name]!)),
    )
    .map((rule) => ({ ...rule, side: 0 as const }));
  const deciders = new Set<number>();
  const analysis = new DirectionAnalysis(
    [...higher, { ...rules[k], side: 1 }],
    () => false,
    (l, e) => {
      if (e >= 0 && l >= 0) deciders.add(higher[l].priority);
    },
    true,
    budget,
  );
  analysis.run();
  return [...deciders].sort((a, b) => a - b);
}
