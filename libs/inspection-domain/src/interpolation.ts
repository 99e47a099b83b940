import { RuleError } from './errors';
import { MASK, isSecretKey, maskSecrets } from './masking';
import { isPlainObject, stringify } from './values';

/**
 * Python-format-like interpolation of rule arguments, as in Ironic: `{node.driver_info[ipmi_address]}`,
 * `{inventory[interfaces][0][mac_address]}`, `{item}`; `{{`/`}}` are literal braces. Only
 * lookups exist — no calls, conversions or format specs — so a hostile rule cannot run code.
 * An argument that is exactly one `{…}` keeps the value's type (lists and dicts pass through).
 */

export const MAX_TEMPLATE_LENGTH = 4096;
const MAX_PLACEHOLDERS = 64;
const MAX_RESULT_LENGTH = 65_536;

export const ROOT_NAMES = ['node', 'ports', 'port_groups', 'inventory', 'plugin_data', 'item'] as const;
export type RootName = (typeof ROOT_NAMES)[number];

interface Lookup {
  source: string;
  root: string;
  keys: string[];
}

interface Template {
  parts: (string | Lookup)[];
  whole?: Lookup;
}

const cache = new Map<string, Template>();

export function parseTemplate(text: string): Template {
  const cached = cache.get(text);
  if (cached) return cached;
  if (text.length > MAX_TEMPLATE_LENGTH) throw new RuleError(`argument longer than ${MAX_TEMPLATE_LENGTH} characters`);
  const parts: (string | Lookup)[] = [];
  let literal = '';
  let lookups = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if ((c === '{' || c === '}') && text[i + 1] === c) {
      literal += c;
      i++;
      continue;
    }
    if (c === '}') throw new RuleError(`single "}" in ${JSON.stringify(text)}`);
    if (c !== '{') {
      literal += c;
      continue;
    }
    const end = text.indexOf('}', i);
    if (end < 0) throw new RuleError(`unclosed "{" in ${JSON.stringify(text)}`);
    if (++lookups > MAX_PLACEHOLDERS) throw new RuleError(`more than ${MAX_PLACEHOLDERS} placeholders in one argument`);
    if (literal) parts.push(literal);
    literal = '';
    parts.push(parseLookup(text.slice(i + 1, end)));
    i = end;
  }
  if (literal) parts.push(literal);
  const template: Template = { parts };
  if (parts.length === 1 && typeof parts[0] !== 'string') template.whole = parts[0];
  if (cache.size > 50_000) cache.clear();
  cache.set(text, template);
  return template;
}

function parseLookup(source: string): Lookup {
  const head = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source);
  if (!head) throw new RuleError(`{${source}} must start with one of ${ROOT_NAMES.join(', ')}`);
  const keys: string[] = [];
  let i = head[0].length;
  while (i < source.length) {
    if (source[i] === '.') {
      const attr = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i + 1));
      if (!attr) throw new RuleError(`bad attribute in {${source}}`);
      keys.push(attr[0]);
      i += 1 + attr[0].length;
    } else if (source[i] === '[') {
      const close = source.indexOf(']', i);
      if (close < 0 || close === i + 1) throw new RuleError(`bad index in {${source}}`);
      keys.push(source.slice(i + 1, close));
      i = close + 1;
    } else {
      throw new RuleError(`only lookups are allowed in {${source}} (no conversions or format specs)`);
    }
  }
  return { source, root: head[0], keys };
}

/** Root names a template reads (for validating a rule against its phase). */
export function templateRoots(text: string): string[] {
  return parseTemplate(text)
    .parts.filter((p): p is Lookup => typeof p !== 'string')
    .map((p) => p.root);
}

function lookup(scope: Record<string, unknown>, ref: Lookup, mask: boolean): unknown {
  if (!Object.hasOwn(scope, ref.root)) return undefined;
  let current = scope[ref.root];
  for (const key of ref.keys) {
    // Masking at lookup costs nothing when no secret is read, unlike masked copies of the data.
    if (mask && isSecretKey(key) && isPlainObject(current) && Object.hasOwn(current, key) && current[key] != null) return MASK;
    if (Array.isArray(current) && /^-?\d+$/.test(key)) {
      const index = Number(key);
      current = current[index < 0 ? current.length + index : index];
    } else if (isPlainObject(current) && Object.hasOwn(current, key)) {
      current = current[key];
    } else {
      return undefined;
    }
    if (current === undefined) return undefined;
  }
  return mask && typeof current === 'object' && current !== null ? maskSecrets(current) : current;
}

export type MissingKeys = 'null' | 'error';

/**
 * Interpolates strings, and strings inside lists and dicts. A missing key gives null
 * (conditions: then `is-empty`/`is-none` behave naturally) or is a RuleError naming the path
 * (actions). With `mask`, every value under a key naming a secret reads `***`.
 */
export function interpolate(value: unknown, scope: Record<string, unknown>, missing: MissingKeys, mask = false): unknown {
  if (typeof value === 'string') return interpolateString(value, scope, missing, mask);
  if (Array.isArray(value)) return value.map((item) => interpolate(item, scope, missing, mask));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value)) out[k] = interpolate(value[k], scope, missing, mask);
    return out;
  }
  return value;
}

function interpolateString(text: string, scope: Record<string, unknown>, missing: MissingKeys, mask: boolean): unknown {
  if (!text.includes('{') && !text.includes('}')) return text;
  const template = parseTemplate(text);
  const resolve = (ref: Lookup) => {
    const found = lookup(scope, ref, mask);
    if (found === undefined && missing === 'error') throw new RuleError(`{${ref.source}} does not exist`);
    return found;
  };
  if (template.whole) return resolve(template.whole) ?? null;
  let out = '';
  for (const part of template.parts) {
    if (typeof part === 'string') {
      out += part;
      continue;
    }
    const found = resolve(part);
    // A missing key in a condition makes the whole argument null rather than a half-built string.
    if (found === undefined) return null;
    out += stringify(found);
    if (out.length > MAX_RESULT_LENGTH) throw new RuleError(`interpolated argument longer than ${MAX_RESULT_LENGTH}`);
  }
  return out;
}
