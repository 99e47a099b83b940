import { RuleError } from './errors';
import { inNet } from './ip';
import { pythonCompare } from './python-order';
import { BoundArgs, ParamSpec } from './params';
import { regexTest } from './safe-regex';
import { deepEqual, isFalse, isPlainObject, isTrue, pythonStr, typeName } from './values';

export interface ConditionPlugin {
  name: string;
  params: ParamSpec[];
  /** Checked for safety when a rule is saved, unless interpolated. */
  regex?: { param: string; fullMatch: boolean };
  /** Ironic's FORMATTED_ARGS. */
  formatted: readonly string[];
  test(args: BoundArgs): boolean;
}

const value: ParamSpec[] = [{ name: 'value' }];
const comparison: ParamSpec[] = [
  // One positional argument is Ironic's `values` list itself; several are the values.
  { name: 'values', variadic: true, singleIsList: true, required: true },
  { name: 'force_strings', keywordOnly: true, default: false },
];

/** Ironic's SimpleOperator: fewer than two values always hold. */
function comparable(values: unknown, forceStrings: unknown): unknown[] | null {
  if (!Array.isArray(values))
    throw new RuleError(`expected a list for 'values', got ${typeName(values)}`);
  if (values.length < 2) return null;
  return forceStrings === true || (typeof forceStrings !== 'boolean' && isTrue(forceStrings))
    ? values.map((v) => pythonStr(v))
    : values;
}

function ordered(values: unknown, forceStrings: unknown, holds: (order: number) => boolean) {
  const list = comparable(values, forceStrings);
  if (!list) return true;
  // As Python's all(): the first pair that does not hold ends it, before a later pair can fail.
  for (let i = 1; i < list.length; i++)
    if (!holds(pythonCompare(list[i - 1], list[i]))) return false;
  return true;
}

/** Python's `in`: an item of a list, a key of a dict, a substring of a string. */
function oneOf(item: unknown, values: unknown): boolean {
  if (Array.isArray(values)) return values.some((v) => deepEqual(v, item));
  if (isPlainObject(values)) return typeof item === 'string' && Object.hasOwn(values, item);
  if (typeof values === 'string' && typeof item === 'string') return values.includes(item);
  throw new RuleError(`one-of needs a list of values, got ${typeName(values)}`);
}

const plugins: ConditionPlugin[] = [
  { name: 'is-true', params: value, formatted: ['value'], test: (a) => isTrue(a.value) },
  { name: 'is-false', params: value, formatted: ['value'], test: (a) => isFalse(a.value) },
  {
    name: 'is-none',
    params: value,
    formatted: ['value'],
    test: (a) => a.value === null || a.value === undefined,
  },
  // Ironic: str(value) in ("", "None", "[]", "{}").
  {
    name: 'is-empty',
    params: value,
    formatted: ['value'],
    test: (a) => ['', 'None', '[]', '{}'].includes(pythonStr(a.value)),
  },
  {
    name: 'eq',
    params: comparison,
    formatted: ['values'],
    test: (a) => {
      const list = comparable(a.values, a.force_strings);
      return !list || list.every((v) => deepEqual(v, list[0]));
    },
  },
  {
    name: 'lt',
    params: comparison,
    formatted: ['values'],
    test: (a) => ordered(a.values, a.force_strings, (order) => order < 0),
  },
  {
    name: 'gt',
    params: comparison,
    formatted: ['values'],
    test: (a) => ordered(a.values, a.force_strings, (order) => order > 0),
  },
  {
    name: 'in-net',
    params: [{ name: 'address' }, { name: 'subnet' }],
    formatted: ['address', 'subnet'],
    test: (a) => inNet(a.address, a.subnet),
  },
  {
    name: 'contains',
    params: [{ name: 'value' }, { name: 'regex' }],
    formatted: ['value'],
    regex: { param: 'regex', fullMatch: false },
    test: (a) => regexTest(a.value, a.regex, false),
  },
  {
    name: 'matches',
    params: [{ name: 'value' }, { name: 'regex' }],
    formatted: ['value'],
    regex: { param: 'regex', fullMatch: true },
    test: (a) => regexTest(a.value, a.regex, true),
  },
  {
    name: 'one-of',
    params: [{ name: 'value' }, { name: 'values', default: [] }],
    formatted: ['value'],
    test: (a) => oneOf(a.value, a.values),
  },
];

export const CONDITIONS: ReadonlyMap<string, ConditionPlugin> = new Map(
  plugins.map((p) => [p.name, p]),
);

export function parseConditionOp(op: string): { name: string; inverted: boolean } {
  const match = /^(!\s*)?([a-z][a-z-]*)$/.exec(op.trim());
  if (!match) throw new RuleError(`unknown condition ${JSON.stringify(op)}`);
  return { name: match[2], inverted: Boolean(match[1]) };
}
