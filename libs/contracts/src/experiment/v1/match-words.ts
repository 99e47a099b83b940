import type { AnalysisTarget, DifferingRegion, Layer4Config, RuleMatch } from './resources';

const ranges = (values?: readonly string[]) => (values?.length ? values.join(', ') : 'anywhere');

function ruleProtocols(configs: readonly Layer4Config[] | undefined): string {
  if (!configs?.length) return 'all protocols';
  return configs
    .map((l4) => (l4.ports?.length ? `${l4.ipProtocol}/${l4.ports.join(',')}` : l4.ipProtocol))
    .join(', ');
}

function regionProtocols(region: DifferingRegion): string {
  const text = region.layer4Configs
    .map((config) => {
      const protocols = config.ipProtocols.join('/');
      if (!config.ports?.length) return protocols === 'all' ? 'any protocol' : protocols;
      return `${protocols}/${config.ports.join(',')}${config.portless ? ' (and portless)' : ''}`;
    })
    .join(', ');
  return text || 'any protocol';
}

function regionSourceTags(condition: AnalysisTarget | undefined): string {
  const parts = [
    ...(condition?.anyTagOf ?? []).map((tags) => tags.join(' or ')),
    ...(condition?.tagsAbsent?.length ? [`none of ${condition.tagsAbsent.join(', ')}`] : []),
  ];
  return parts.length ? `with source tags ${parts.join(' and ')}` : '';
}

/** In sentence order, keyed by every RuleMatch field (a new one needs words). */
export const MATCH_FIELD_WORDS: {
  readonly [Field in keyof Required<RuleMatch>]: {
    rule(value: RuleMatch[Field]): string;
    region(region: DifferingRegion): string;
  };
} = {
  layer4Configs: { rule: ruleProtocols, region: regionProtocols },
  srcIpRanges: {
    rule: (value) => `from ${ranges(value)}`,
    region: (region) => `from ${ranges(region.srcIpRanges)}`,
  },
  destIpRanges: {
    rule: (value) => `to ${ranges(value)}`,
    region: (region) => `to ${ranges(region.destIpRanges)}`,
  },
  srcSecureTags: {
    rule: (value) =>
      value?.length ? `with source tag ${value.map((tag) => tag.name).join(' or ')}` : '',
    region: (region) => regionSourceTags(region.srcSecureTags),
  },
};

/** "tcp/22 from 0.0.0.0/0 to anywhere" */
export function matchWords(match: RuleMatch): string {
  return Object.entries(MATCH_FIELD_WORDS)
    .map(([field, words]) =>
      (words.rule as (value: unknown) => string)(match[field as keyof RuleMatch]),
    )
    .filter(Boolean)
    .join(' ');
}

/** Target tags aside: "INGRESS tcp/22 from 0.0.0.0/0 to anywhere". */
export function regionMatchWords(region: DifferingRegion): string {
  return Object.values(MATCH_FIELD_WORDS)
    .map((words) => words.region(region))
    .filter(Boolean)
    .join(' ');
}
