/**
 * One descriptor per match field of a rule: validation, the compiler, the analysis, the rule
 * diff and the verdict changes all read this table, and the type refuses a field without its row.
 */
import { isIP } from 'node:net';
import {
  type AnalysisTarget,
  type DifferingRegion,
  type FlowConnection,
  type FirewallRule,
  type Layer4Config,
  MATCH_FIELD_WORDS,
  type RuleMatch,
  type SecureTag,
} from '@rollout/contracts';
import {
  ADDRESS_END,
  Interval,
  LAYER4_END,
  addressIntervals,
  layer4Intervals,
  toCidrs,
  toLayer4,
} from './analysis/space';
import { type TagCell, toTarget } from './analysis/tags';
import { normalLayer4, normalRanges } from './diff/normal-forms';
import { describeRanges, layer4Text } from './diff/region-words';
import { NAMED_PROTOCOLS, PORTED_PROTOCOLS } from './model';
import { isObject, Violations } from './violations';

/** Dimensions that are lines of integer keys: the engine looks a key up, the analysis cuts intervals. */
export type LineDimension = 'source' | 'destination' | 'layer4';
/** Dimensions of labels a connection carries any set of: a rule with labels matches a connection carrying one. */
export type LabelDimension = 'sourceTags';
export type LabelAttribute = keyof Pick<FlowConnection, 'srcSecureTags'>;

/** A field's part of a verdict-change sentence: "from 10.0.0.0/8", and what it leaves out. */
export interface SummaryPart {
  text: string;
  except?: string;
  /** Names the exceptions when several fields have some: "from", "to". */
  preposition?: string;
}

interface FieldBase<Value> {
  readonly type: string;
  /** The console reads the same words. */
  readonly words: { rule(value: Value): string; region(region: DifferingRegion): string };
  validate(value: unknown, path: string, out: Violations): Value | undefined;
  /** The value as a reviewer compares it (see normalizeRule). */
  normal(value: Value | undefined): string[];
  summary(region: DifferingRegion): SummaryPart;
}

export interface LineField<Value> extends FieldBase<Value> {
  readonly kind: 'line';
  readonly dimension: LineDimension;
  readonly end: bigint;
  /** The keys of the dimension the value matches; absent or empty: the whole line. */
  keys(value: Value | undefined): Interval[];
  region(keys: readonly Interval[]): Partial<DifferingRegion>;
}

export interface LabelField<Value> extends FieldBase<Value> {
  readonly kind: 'labels';
  readonly dimension: LabelDimension;
  readonly attribute: LabelAttribute;
  labels(value: Value | undefined): string[] | undefined;
  /** A differing region's part for a cell of label sets (see analysis/tags), and that part read back. */
  region(cell: TagCell): Partial<DifferingRegion>;
  condition(region: DifferingRegion): AnalysisTarget | undefined;
}

type MatchField<Value> = LineField<Value> | LabelField<Value>;
type MatchFields = { readonly [Field in keyof Required<RuleMatch>]: MatchField<RuleMatch[Field]> };

export function isIpRange(value: unknown): boolean {
  if (typeof value !== 'string' || value.length > 64) return false;
  const [address, prefix, extra] = value.split('/');
  if (extra !== undefined) return false;
  const version = isIP(address);
  if (version === 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (version === 4 ? 32 : 128);
}

function portRangeProblem(value: unknown): string | undefined {
  const match = typeof value === 'string' ? /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(value) : null;
  if (!match) return 'must be a port ("443") or a range ("8000-8080")';
  const low = Number(match[1]);
  const high = match[2] === undefined ? low : Number(match[2]);
  if (low > 65535 || high > 65535) return 'ports are 0-65535';
  if (low > high) return 'a range must go from low to high';
  return undefined;
}

function layer4Config(value: unknown, path: string, out: Violations): Layer4Config | undefined {
  if (!isObject(value)) return (void out.add(path, 'must be an object'), undefined);
  out.unknownFields(value, new Set(['ipProtocol', 'ports']), path);
  const protocol = value.ipProtocol;
  const known =
    typeof protocol === 'string' &&
    (NAMED_PROTOCOLS.has(protocol) || (/^\d{1,3}$/.test(protocol) && Number(protocol) <= 255));
  if (!known)
    out.add(
      `${path}.ipProtocol`,
      'must be tcp, udp, icmp, icmpv6, sctp, esp, ah, all or a number 0-255',
    );
  const ports = out.list(value.ports, `${path}.ports`, portRangeProblem);
  if (ports?.length && known && !PORTED_PROTOCOLS.has(protocol as string)) {
    out.add(`${path}.ports`, 'ports apply only to tcp, udp and sctp');
  }
  return { ipProtocol: String(protocol), ...(ports ? { ports } : {}) };
}

/** GCP's limit of source secure tags per rule. */
const MAX_SECURE_TAGS = 256;
const SECURE_TAG_FIELDS: ReadonlySet<string> = new Set(['name']);
/** GCP returns a tag's `state` (EFFECTIVE, INEFFECTIVE); a client may echo it back. */
const SECURE_TAG_OUTPUT_ONLY: ReadonlySet<string> = new Set(['state']);
/** Printable, without spaces: `tagValues/123`, `k8s:app=web`, `reserved:host`. */
const SECURE_TAG_NAME = /^[\x21-\x7e]{1,256}$/;
const SECURE_TAG_PROBLEM =
  'must be a tag value (tagValues/123) or a workload label (k8s:app=web): 1-256 printable characters, no spaces';

const rangeProblem = (range: unknown) =>
  isIpRange(range) ? undefined : 'must be an IPv4 or IPv6 address or CIDR range';

function addressField(
  dimension: 'source' | 'destination',
  regionField: 'srcIpRanges' | 'destIpRanges',
  preposition: string,
): MatchField<string[] | undefined> {
  return {
    kind: 'line',
    type: 'list of IPv4/IPv6 addresses or CIDR ranges; empty: every address',
    words: MATCH_FIELD_WORDS[regionField],
    dimension,
    end: ADDRESS_END,
    validate: (value, path, out) => out.list(value, path, rangeProblem),
    keys: addressIntervals,
    region: (keys) => ({ [regionField]: toCidrs(keys) }),
    normal: normalRanges,
    summary: (region) => {
      const ranges = describeRanges(region[regionField]);
      if (ranges.everything) return { text: '' };
      return { text: `${preposition} ${ranges.text}`, except: ranges.except, preposition };
    },
  };
}

export const MATCH_FIELDS: MatchFields = {
  srcIpRanges: addressField('source', 'srcIpRanges', 'from'),
  destIpRanges: addressField('destination', 'destIpRanges', 'to'),
  layer4Configs: {
    kind: 'line',
    type: 'list of {ipProtocol, ports}; empty: every protocol and port',
    words: MATCH_FIELD_WORDS.layer4Configs,
    dimension: 'layer4',
    end: LAYER4_END,
    validate: (value, path, out) => {
      if (value === undefined) return undefined;
      if (!Array.isArray(value)) return (void out.add(path, 'must be a list'), undefined);
      return value
        .map((config, i) => layer4Config(config, `${path}[${i}]`, out))
        .filter((config): config is Layer4Config => config !== undefined);
    },
    keys: layer4Intervals,
    region: (keys) => ({ layer4Configs: toLayer4(keys) }),
    normal: normalLayer4,
    summary: (region) => ({ text: layer4Text(region.layer4Configs) }),
  },
  srcSecureTags: {
    kind: 'labels',
    type: 'list of {name}: tag values (tagValues/123) or workload labels (k8s:app=web); empty: any source',
    words: MATCH_FIELD_WORDS.srcSecureTags,
    dimension: 'sourceTags',
    attribute: 'srcSecureTags',
    validate: (value, path, out) => {
      if (value === undefined) return undefined;
      if (!Array.isArray(value)) return (void out.add(path, 'must be a list'), undefined);
      if (value.length > MAX_SECURE_TAGS)
        return (void out.add(path, `at most ${MAX_SECURE_TAGS} tags`), undefined);
      return value.flatMap((tag, i): SecureTag[] => {
        const at = `${path}[${i}]`;
        if (!isObject(tag)) return (out.add(at, 'must be an object with a name'), []);
        out.unknownFields(tag, SECURE_TAG_FIELDS, at, SECURE_TAG_OUTPUT_ONLY);
        if (typeof tag.name !== 'string' || !SECURE_TAG_NAME.test(tag.name))
          return (out.add(`${at}.name`, SECURE_TAG_PROBLEM), []);
        return [{ name: tag.name }];
      });
    },
    labels: (value) => value?.map((tag) => tag.name),
    region: (cell) => {
      const { target } = toTarget(cell);
      return target ? { srcSecureTags: target } : {};
    },
    condition: (region) => region.srcSecureTags,
    normal: (value) => [...new Set((value ?? []).map((tag) => tag.name))].sort(),
    summary: (region) => ({ text: MATCH_FIELD_WORDS.srcSecureTags.region(region) }),
  },
};

export const MATCH_FIELD_NAMES = Object.keys(MATCH_FIELDS) as (keyof RuleMatch)[];

export const LINE_FIELDS = MATCH_FIELD_NAMES.flatMap((name) => {
  const field = MATCH_FIELDS[name];
  return field.kind === 'line' ? [{ name, field: field as LineField<unknown> }] : [];
});

export const LABEL_FIELDS = MATCH_FIELD_NAMES.flatMap((name) => {
  const field = MATCH_FIELDS[name];
  return field.kind === 'labels' ? [{ name, field: field as LabelField<unknown> }] : [];
});

function spanning(dimension: LineDimension | LabelDimension): keyof RuleMatch {
  const name = MATCH_FIELD_NAMES.find((field) => MATCH_FIELDS[field].dimension === dimension);
  if (!name) throw new Error(`no match field spans the ${dimension} dimension`);
  return name;
}

const SOURCE = spanning('source');
const DESTINATION = spanning('destination');
const LAYER4 = spanning('layer4');

export function rangesOn(
  rule: FirewallRule,
  dimension: 'source' | 'destination',
): readonly string[] | undefined {
  return rule.match?.[dimension === 'source' ? SOURCE : DESTINATION] as string[] | undefined;
}

export function tagsOn(rule: FirewallRule, dimension: LabelDimension): string[] | undefined {
  const name = spanning(dimension);
  return (MATCH_FIELDS[name] as LabelField<unknown>).labels(rule.match?.[name]);
}

export const layer4Of = (rule: FirewallRule) => rule.match?.[LAYER4] as Layer4Config[] | undefined;
