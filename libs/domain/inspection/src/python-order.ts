import { RuleError } from './errors';
import { isPlainObject, typeName } from './values';

/** Ironic's `lt`/`gt` apply Python's ordering; what Python cannot order is an error, as its TypeError. */
function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return undefined;
}

/** Never an error; values of different kinds differ. */
export function pythonEquals(a: unknown, b: unknown): boolean {
  const x = asNumber(a);
  const y = asNumber(b);
  if (x !== undefined || y !== undefined) return x === y;
  if (a === null || a === undefined || b === null || b === undefined)
    return (a === null || a === undefined) && (b === null || b === undefined);
  if (Array.isArray(a) || Array.isArray(b))
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, i) => pythonEquals(item, b[i]))
    );
  if (isPlainObject(a) || isPlainObject(b)) {
    if (!isPlainObject(a) || !isPlainObject(b)) return false;
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((key) => Object.hasOwn(b, key) && pythonEquals(a[key], b[key]))
    );
  }
  return a === b;
}

/** Surrogates (code points above U+FFFF) rank after U+E000–FFFF. */
function codePointRank(unit: number): number {
  return unit >= 0xe000 ? unit - 0x800 : unit >= 0xd800 ? unit + 0x2000 : unit;
}

/** JavaScript's `<` compares UTF-16 units; Python compares code points. */
function compareText(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    return codePointRank(x) < codePointRank(y) ? -1 : 1;
  }
  return Math.sign(a.length - b.length);
}

/** Throws RuleError where Python's `<` raises TypeError. */
export function pythonCompare(a: unknown, b: unknown): number {
  const x = asNumber(a);
  const y = asNumber(b);
  if (x !== undefined && y !== undefined) return x < y ? -1 : x > y ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return compareText(a, b);
  if (Array.isArray(a) && Array.isArray(b)) {
    const length = Math.min(a.length, b.length);
    for (let i = 0; i < length; i++)
      if (!pythonEquals(a[i], b[i])) return pythonCompare(a[i], b[i]);
    return Math.sign(a.length - b.length);
  }
  throw new RuleError(
    `cannot compare ${typeName(a)} with ${typeName(b)} (use force_strings to compare as strings)`,
  );
}
