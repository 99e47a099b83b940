import { RuleError } from './errors';
import { isPlainObject, typeName } from './values';

/**
 * Python's ordering of JSON data, which Ironic's `lt` and `gt` apply (`operator.lt`/`gt`):
 * booleans are the numbers 0 and 1 (`False < True`, `0 < True`, `True == 1`), strings compare
 * by code point, lists item by item. What Python cannot order (a string with a number, null,
 * dicts) is an error, as Python's TypeError is in Ironic.
 */

/** A number, or a boolean as the number Python makes of it; undefined for anything else. */
function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return undefined;
}

/** Python's `a == b` on JSON data (never an error; values of different kinds differ). */
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

/** A UTF-16 unit ranked so that surrogates (code points above U+FFFF) come after U+E000–FFFF. */
function codePointRank(unit: number): number {
  return unit >= 0xe000 ? unit - 0x800 : unit >= 0xd800 ? unit + 0x2000 : unit;
}

/** Strings in code point order, as Python compares them (JavaScript's `<` compares UTF-16 units). */
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

/**
 * Negative, zero or positive as Python orders `a` and `b`; throws RuleError where Python's `<`
 * raises TypeError.
 */
export function pythonCompare(a: unknown, b: unknown): number {
  const x = asNumber(a);
  const y = asNumber(b);
  if (x !== undefined && y !== undefined) return x < y ? -1 : x > y ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return compareText(a, b);
  if (Array.isArray(a) && Array.isArray(b)) {
    // Python compares the first items that differ (by ==), else the lengths.
    const length = Math.min(a.length, b.length);
    for (let i = 0; i < length; i++)
      if (!pythonEquals(a[i], b[i])) return pythonCompare(a[i], b[i]);
    return Math.sign(a.length - b.length);
  }
  throw new RuleError(
    `cannot compare ${typeName(a)} with ${typeName(b)} (use force_strings to compare as strings)`,
  );
}
