import type { FirewallRule, RuleTransition, PreviewVerdict } from '@rollout/contracts';
import { describeRule, ruleLabel } from '../changes/rule-words';
import { VERDICT_COLOURS } from './time-buckets';

/** The rules of each side, when known, to say on hover what a node's rule matches. */
export interface SankeyRules {
  live?: FirewallRule[];
  experiment?: FirewallRule[];
}

function ruleText(verdict: PreviewVerdict, rules?: FirewallRule[]): string {
  if (verdict.implied || verdict.rulePriority === null)
    return 'no rule matches: the implied rule decides (ingress denied, egress allowed)';
  const rule = rules?.find((r) => r.priority === verdict.rulePriority);
  return rule ? `matches ${describeRule(rule)}` : 'its rules are not held for this version';
}

interface SankeyItem {
  description: string;
}

/** Links whose verdict changes take the new verdict's colour, unchanged ones faint grey. */
export function sankeyOption(transitions: RuleTransition[], rules: SankeyRules) {
  const nodes = new Map<string, SankeyItem & { name: string; itemStyle: { color: string } }>();
  const node = (side: 'live' | 'experiment', verdict: PreviewVerdict) => {
    const name = `${side} ${ruleLabel(verdict)}`;
    if (!nodes.has(name))
      nodes.set(name, {
        name,
        itemStyle: { color: VERDICT_COLOURS[verdict.action] },
        description: `${name}: ${ruleText(verdict, rules[side])}`,
      });
    return name;
  };
  const links = transitions.map((t) => {
    const changed = t.live.action !== t.experiment.action;
    const source = node('live', t.live);
    const target = node('experiment', t.experiment);
    const events = `${t.count.toLocaleString('en-US')} events`;
    return {
      source,
      target,
      value: t.count,
      changed,
      lineStyle: changed
        ? { color: VERDICT_COLOURS[t.experiment.action], opacity: 0.65 }
        : { color: VERDICT_COLOURS.unchanged, opacity: 0.3 },
      description: `${source} → ${target}: ${events}, ${
        changed ? `${t.live.action} → ${t.experiment.action}` : `still ${t.live.action}`
      }`,
    };
  });
  return {
    animation: false,
    tooltip: {
      renderMode: 'richText',
      formatter: (params: { data?: Partial<SankeyItem> }) => params.data?.description ?? '',
    },
    series: [
      {
        type: 'sankey',
        left: 10,
        right: 10,
        layoutIterations: 0,
        emphasis: { focus: 'adjacency' },
        // The experiment's rules are labelled on their left, so no label runs off a phone's screen.
        levels: [{ depth: 1, label: { position: 'left' } }],
        data: [...nodes.values()],
        links,
      },
    ],
  };
}
