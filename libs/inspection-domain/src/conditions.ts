import { RuleError } from './errors';
import { inNet } from './ip';
import { BoundArgs, ParamSpec } from './params';
import { regexTest } from './safe-regex';
import { deepEqual, isEmpty, isFalse, isTrue, stringify, typeName } from './values';

export interface ConditionPlugin {
  name: string;
  params: ParamSpec[];
  /** The argument that is a regex, checked for safety when a rule is saved (unless interpolated). */
  regex?: { param: string; fullMatch: boolean };
  test(args: BoundArgs): boolean;
}

const value: ParamSpec[] = [{ name: 'value' }];
const comparison: ParamSpec[] = [
  { name: 'values', variadic: true, minItems: 2 },
  { name: 'force_strings', keywordOnly: true, default: false },
];

function comparable(values: unknown[], forceStrings: unknown): unknown[] {
  if (values.length < 2) throw new RuleError('comparison needs at least two values');
  return isTrue(forceStrings) ? values.map((v) => stringify(v)) : values;
}

/** `lt`/`gt` order numbers with numbers and strings with strings; anything else is an error. */
function ordered(values: unknown[], forceStrings: unknown, holds: (a: number | string, b: number | string) => boolean) {
  const list = comparable(values, forceStrings);
  for (let i = 1; i < list.length; i++) {
    const [a, b] = [list[i - 1], list[i]];
    const ok = (typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string');
    if (!ok) throw new RuleError(`cannot compare ${typeName(a)} with ${typeName(b)} (use force_strings to compare as strings)`);
    if (!holds(a as number | string, b as number | string)) return false;
  }
  return true;
}

const plugins: ConditionPlugin[] = [
  { name: 'is-true', params: value, test: (a) => isTrue(a.value) },
  { name: 'is-false', params: value, test: (a) => isFalse(a.value) },
  { name: 'is-none', params: value, test: (a) => a.value === null || a.value === undefined },
  { name: 'is-empty', params: value, test: (a) => isEmpty(a.value) },
  {
    name: 'eq',
    params: comparison,
    test: (a) => {
      const list = comparable(a.values as unknown[], a.force_strings);
      return list.every((v) => deepEqual(v, list[0]));
    },
  },
  { name: 'lt', params: comparison, test: (a) => ordered(a.values as unknown[], a.force_strings, (x, y) => x < y) },
  { name: 'gt', params: comparison, test: (a) => ordered(a.values as unknown[], a.force_strings, (x, y) => x > y) },
  { name: 'in-net', params: [{ name: 'address' }, { name: 'subnet' }], test: (a) => inNet(a.address, a.subnet) },
  {
    name: 'contains',
    params: [{ name: 'value' }, { name: 'regex' }],
    regex: { param: 'regex', fullMatch: false },
    test: (a) => regexTest(a.value, a.regex, false),
  },
  {
    name: 'matches',
    params: [{ name: 'value' }, { name: 'regex' }],
    regex: { param: 'regex', fullMatch: true },
    test: (a) => regexTest(a.value, a.regex, true),
  },
  {
    name: 'one-of',
    params: [{ name: 'value' }, { name: 'values' }],
    test: (a) => {
      if (!Array.isArray(a.values)) throw new RuleError(`one-of needs a list of values, got ${typeName(a.values)}`);
      return a.values.some((v) => deepEqual(v, a.value));
    },
  },
];

export const CONDITIONS: ReadonlyMap<string, ConditionPlugin> = new Map(plugins.map((p) => [p.name, p]));

/** `!eq`, `! eq` → { name: 'eq', inverted: true }. */
export function parseConditionOp(op: string): { name: string; inverted: boolean } {
  const match = /^(!\s*)?([a-z][a-z-]*)$/.exec(op.trim());
  if (!match) throw new RuleError(`unknown condition ${JSON.stringify(op)}`);
  return { name: match[2], inverted: Boolean(match[1]) };
}
