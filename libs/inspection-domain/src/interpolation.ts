import { RuleError } from './errors';
import { MASK, isSecretKey } from './masking';
import { isPlainObject, setOwn, stringify } from './values';

/**
 * Python-format-like interpolation of rule arguments, as in Ironic: `{node.driver_info[ipmi_address]}`,
 * `{inventory[interfaces][0][mac_address]}`, `{item}`; `{{`/`}}` are literal braces. Only
 * lookups exist — no calls, conversions or format specs — so a hostile rule cannot run code.
 * An argument that is exactly one `{…}` keeps the value's type (lists and dicts pass through).
 * Arguments are compiled once per rule set; running one is a few property reads.
 */

export const MAX_TEMPLATE_LENGTH = 4096;
const MAX_PLACEHOLDERS = 64;
const MAX_RESULT_LENGTH = 65_536;

export const ROOT_NAMES = ['node', 'ports', 'port_groups', 'inventory', 'plugin_data', 'item'] as const;
export type RootName = (typeof ROOT_NAMES)[number];

/** What `{…}` can name while a phase's rules run (absent in `early`: node, ports, port_groups; outside loops: item). */
export type Scope = Partial<Record<RootName, unknown>>;

/** Whether a missing key reads as null (conditions) or is a rule error naming the path (actions). */
export type MissingKeys = 'null' | 'error';

/** What a compiled argument reads from while it runs. */
export interface Reader {
  readonly scope: Scope;
  /** Whether values under a key naming a secret read `***` (`mask_secrets`). */
  readonly mask: boolean;
  /** A copy of a list or dict with its secrets masked (cached while the data is unchanged). */
  masked(value: object): unknown;
}

export type Resolver = (reader: Reader, missing: MissingKeys) => unknown;

interface Key {
  name: string;
  /** The index when the key is an integer (negative counts from the end of a list). */
  index: number | null;
  secret: boolean;
}

interface Lookup {
  source: string;
  root: string;
  keys: Key[];
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

function key(name: string): Key {
  return { name, index: /^-?\d{1,9}$/.test(name) ? Number(name) : null, secret: isSecretKey(name) };
}

function parseLookup(source: string): Lookup {
  const head = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source);
  if (!head) throw new RuleError(`{${source}} must start with one of ${ROOT_NAMES.join(', ')}`);
  const keys: Key[] = [];
  let i = head[0].length;
  while (i < source.length) {
    if (source[i] === '.') {
      const attr = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i + 1));
      if (!attr) throw new RuleError(`bad attribute in {${source}}`);
      keys.push(key(attr[0]));
      i += 1 + attr[0].length;
    } else if (source[i] === '[') {
      const close = source.indexOf(']', i);
      if (close < 0 || close === i + 1) throw new RuleError(`bad index in {${source}}`);
      keys.push(key(source.slice(i + 1, close)));
      i = close + 1;
    } else {
      throw new RuleError(`only lookups are allowed in {${source}} (no conversions or format specs)`);
    }
  }
  return { source, root: head[0], keys };
}

/** The text of a template without lookups (`a{{2}}` → `a{2}`), or null when it has some. */
export function literalText(text: string): string | null {
  const { parts } = parseTemplate(text);
  return parts.every((part) => typeof part === 'string') ? parts.join('') : null;
}

/** Root names a template reads (for validating a rule against its phase). */
export function templateRoots(text: string): string[] {
  return parseTemplate(text)
    .parts.filter((p): p is Lookup => typeof p !== 'string')
    .map((p) => p.root);
}

function lookup(reader: Reader, ref: Lookup): unknown {
  // Only own names of the scope: `{constructor}` is a missing key, not an inherited property.
  if (!(ROOT_NAMES as readonly string[]).includes(ref.root)) return undefined;
  let current = reader.scope[ref.root as RootName];
  if (current === undefined) return undefined;
  const { mask } = reader;
  for (const k of ref.keys) {
    if (Array.isArray(current)) {
      if (k.index === null) return undefined;
      current = current[k.index < 0 ? current.length + k.index : k.index];
    } else if (isPlainObject(current) && Object.hasOwn(current, k.name)) {
      // Masking at lookup costs nothing when no secret is read, unlike masked copies of all the data.
      if (mask && k.secret && current[k.name] !== null && current[k.name] !== undefined) return MASK;
      current = current[k.name];
    } else {
      return undefined;
    }
    if (current === undefined) return undefined;
  }
  return mask && typeof current === 'object' && current !== null ? reader.masked(current) : current;
}

function resolve(reader: Reader, ref: Lookup, missing: MissingKeys): unknown {
  const found = lookup(reader, ref);
  if (found === undefined && missing === 'error') throw new RuleError(`{${ref.source}} does not exist`);
  return found;
}

function compileString(text: string): Resolver | null {
  if (!text.includes('{') && !text.includes('}')) return null;
  const { parts, whole } = parseTemplate(text);
  if (whole) return (reader, missing) => resolve(reader, whole, missing) ?? null;
  if (parts.every((part) => typeof part === 'string')) {
    const literal = parts.join('');
    return () => literal;
  }
  return (reader, missing) => {
    let out = '';
    for (const part of parts) {
      if (typeof part === 'string') {
        out += part;
        continue;
      }
      const found = resolve(reader, part, missing);
      // A missing key in a condition makes the whole argument null rather than a half-built string.
      if (found === undefined) return null;
      out += stringify(found);
      if (out.length > MAX_RESULT_LENGTH) throw new RuleError(`interpolated argument longer than ${MAX_RESULT_LENGTH}`);
    }
    return out;
  };
}

/**
 * Compiles an argument (a string, or strings inside lists and dicts) into a resolver, or null
 * when it holds nothing to interpolate and is used as it is.
 */
export function compileArgument(value: unknown): Resolver | null {
  if (typeof value === 'string') return compileString(value);
  if (Array.isArray(value)) {
    const items = value.map(compileArgument);
    if (items.every((item) => item === null)) return null;
    return (reader, missing) => value.map((item, i) => (items[i] ? items[i](reader, missing) : item));
  }
  if (isPlainObject(value)) {
    const entries = Object.entries(value).map(([k, v]) => [k, v, compileArgument(v)] as const);
    if (entries.every(([, , r]) => r === null)) return null;
    return (reader, missing) => {
      const out: Record<string, unknown> = {};
      for (const [k, v, r] of entries) setOwn(out, k, r ? r(reader, missing) : v);
      return out;
    };
  }
  return null;
}
