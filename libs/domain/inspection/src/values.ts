export type JsonObject = Record<string, unknown>;

export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]))
    );
  }
  return false;
}

/** Sets an own property, so that a `__proto__` key of JSON data stays plain data. */
export function setOwn(target: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else target[key] = value;
}

/** A deep copy of JSON data (structuredClone keeps own `__proto__` keys as plain data). */
export function cloneJson<T>(value: T): T {
  return typeof value === 'object' && value !== null ? structuredClone(value) : value;
}

/** How a value reads inside a larger string: strings as they are, the rest as JSON. */
export function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return 'null';
  return JSON.stringify(value);
}

/** `yes`/`true` (any case, no spaces around, as Ironic), `true`, non-zero numbers. */
export function isTrue(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return ['yes', 'true'].includes(value.toLowerCase());
  return false;
}

/** `no`/`false` (any case, no spaces around), `false`, 0, null. A random string is neither true nor false. */
export function isFalse(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === 'boolean') return !value;
  if (typeof value === 'number') return value === 0;
  if (typeof value === 'string') return ['no', 'false'].includes(value.toLowerCase());
  return false;
}

export function typeName(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'list';
  if (isPlainObject(value)) return 'dict';
  return typeof value;
}

/** Python's `repr` of JSON data (what `str` shows inside lists and dicts). */
export function pythonRepr(value: unknown): string {
  if (typeof value === 'string') {
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    const escaped = value
      .replace(/\\/g, '\\\\')
      .replace(/\n/g, '\\n')
      .replace(/\r/g, '\\r')
      .replace(/\t/g, '\\t');
    return quote + (quote === "'" ? escaped.replace(/'/g, "\\'") : escaped) + quote;
  }
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  if (isPlainObject(value))
    return `{${Object.entries(value)
      .map(([k, v]) => `${pythonRepr(k)}: ${pythonRepr(v)}`)
      .join(', ')}}`;
  return pythonStr(value);
}

/**
 * Python's `str` of JSON data, which Ironic's conditions compare and match against:
 * `None`, `True`/`False`, `[1, 'a']`, `{'k': 'v'}`.
 */
export function pythonStr(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return pythonNumber(value);
  return pythonRepr(value);
}

/**
 * Python's `str` of a JSON number: a whole number as the `int` Python's JSON reader makes of
 * it (every digit), any other as a `float`'s repr: the shortest digits that read back (as
 * JavaScript's), in exponent form below 1e-4 with at least two exponent digits (`1e-05`).
 */
function pythonNumber(value: number): string {
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : value < 0 ? '-inf' : 'nan';
  if (Number.isInteger(value)) return BigInt(value).toString();
  const [digits, exponent] = value.toExponential().split('e');
  const power = Number(exponent);
  if (power >= -4) return String(value);
  return `${digits}e-${String(-power).padStart(2, '0')}`;
}
