import { RuleError } from './errors';
import { isPlainObject, pythonRepr, pythonStr, typeName } from './values';

/**
 * The part of Python's format mini-language Ironic's `str.format` gives a rule; anything else
 * is refused when the rule is saved. Formatting never reads an attribute or calls anything.
 */
export interface FormatSpec {
  fill: string;
  align: '<' | '>' | '^' | '=' | null;
  sign: '+' | '-' | ' ' | null;
  alternate: boolean;
  zero: boolean;
  width: number;
  grouping: ',' | '_' | null;
  precision: number | null;
  type: string | null;
}

const SPEC =
  /^(?:(.)?([<>=^]))?([+\- ])?(#)?(0)?(\d{1,3})?([,_])?(?:\.(\d{1,3}))?([sdncboxXeEfFgG%])?$/s;

export function parseFormatSpec(text: string, where: string): FormatSpec {
  const match = SPEC.exec(text);
  if (!match) throw new RuleError(`unsupported format spec ":${text}" in {${where}}`);
  const [, fill, align, sign, alternate, zero, width, grouping, precision, type] = match;
  return {
    fill: fill ?? (zero && !align ? '0' : ' '),
    align: (align as FormatSpec['align']) ?? (zero ? '=' : null),
    sign: (sign as FormatSpec['sign']) ?? null,
    alternate: Boolean(alternate),
    zero: Boolean(zero),
    width: width ? Number(width) : 0,
    grouping: (grouping as FormatSpec['grouping']) ?? null,
    precision: precision !== undefined ? Number(precision) : null,
    type: type ?? null,
  };
}

export type Conversion = 'r' | 's';

export function parseConversion(text: string, where: string): Conversion {
  if (text !== 'r' && text !== 's')
    throw new RuleError(`unsupported conversion "!${text}" in {${where}} (use !s or !r)`);
  return text;
}

function group(digits: string, separator: string | null): string {
  return separator ? digits.replace(/\B(?=(\d{3})+(?!\d))/g, separator) : digits;
}

function formatNumber(value: number, spec: FormatSpec): { sign: string; body: string } {
  const type = spec.type ?? (Number.isInteger(value) ? 'd' : 'g');
  const integral = 'dnbcoxX'.includes(type);
  if (integral && !Number.isInteger(value))
    throw new RuleError(`format code '${type}' needs an integer, got ${value}`);
  const negative = value < 0 || Object.is(value, -0);
  const magnitude = Math.abs(value);
  let body: string;
  switch (type) {
    case 'd':
    case 'n':
      body = group(String(magnitude), spec.grouping);
      break;
    case 'c':
      body = String.fromCodePoint(magnitude);
      break;
    case 'b':
    case 'o':
    case 'x':
    case 'X': {
      const radix = { b: 2, o: 8, x: 16, X: 16 }[type];
      const digits = magnitude.toString(radix);
      body = (spec.alternate ? `0${type}` : '') + (type === 'X' ? digits.toUpperCase() : digits);
      break;
    }
    case 'e':
    case 'E': {
      const [mantissa, exponent] = magnitude.toExponential(spec.precision ?? 6).split('e');
      const exp = Number(exponent);
      body = `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
      if (type === 'E') body = body.toUpperCase();
      break;
    }
    case '%': {
      const [whole, fraction] = (magnitude * 100).toFixed(spec.precision ?? 6).split('.');
      body = `${group(whole, spec.grouping)}${fraction !== undefined ? `.${fraction}` : ''}%`;
      break;
    }
    case 'g':
    case 'G': {
      body =
        spec.type === null && spec.precision === null
          ? pythonStr(magnitude)
          : String(Number(magnitude.toPrecision(spec.precision || 6)));
      if (type === 'G') body = body.toUpperCase();
      break;
    }
    default: {
      const [whole, fraction] = magnitude.toFixed(spec.precision ?? 6).split('.');
      body = `${group(whole, spec.grouping)}${fraction !== undefined ? `.${fraction}` : ''}`;
    }
  }
  return { sign: negative ? '-' : spec.sign === '+' ? '+' : spec.sign === ' ' ? ' ' : '', body };
}

function pad(text: string, spec: FormatSpec, defaultAlign: '<' | '>', sign = ''): string {
  const align = spec.align ?? defaultAlign;
  const missing = spec.width - sign.length - text.length;
  if (missing <= 0) return sign + text;
  const fill = spec.fill.repeat(missing);
  if (align === '=') return sign + fill + text;
  if (align === '<') return sign + text + fill;
  if (align === '>') return fill + sign + text;
  const left = spec.fill.repeat(Math.floor(missing / 2));
  return left + sign + text + spec.fill.repeat(missing - left.length);
}

/** A mismatch is a rule error, as Python's. */
export function pythonFormat(
  value: unknown,
  conversion: Conversion | null,
  spec: FormatSpec | null,
): string {
  const converted =
    conversion === 'r' ? pythonRepr(value) : conversion === 's' ? pythonStr(value) : value;
  if (!spec) return pythonStr(converted);
  if (typeof converted === 'string') {
    if (spec.type !== null && spec.type !== 's')
      throw new RuleError(`format code '${spec.type}' cannot format a string`);
    if (spec.align === '=' || spec.sign !== null || spec.grouping !== null || spec.alternate)
      throw new RuleError('this format spec is for numbers, not a string');
    const text =
      spec.precision !== null ? [...converted].slice(0, spec.precision).join('') : converted;
    return pad(text, spec, '<');
  }
  if (typeof converted === 'number' || typeof converted === 'boolean') {
    if (spec.type === 's')
      throw new RuleError(`format code 's' cannot format a ${typeName(converted)}`);
    const { sign, body } = formatNumber(Number(converted), spec);
    return pad(body, spec, '>', sign);
  }
  if (
    Array.isArray(converted) ||
    isPlainObject(converted) ||
    converted === null ||
    converted === undefined
  ) {
    throw new RuleError(`a ${typeName(converted)} cannot be formatted with a format spec`);
  }
  return pythonStr(converted);
}
