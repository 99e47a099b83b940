import { RuleError } from './errors';
import { MASK, isSecretKey } from './masking';
import {
  Conversion,
  FormatSpec,
  parseConversion,
  parseFormatSpec,
  pythonFormat,
} from './python-format';
import { isPlainObject, pythonStr, setOwn } from './values';

/**
 * Ironic's Python-format interpolation of rule arguments. Only lookups exist (no attribute of
 * anything but the node, no calls), so a hostile rule cannot run code. An argument that is
 * exactly one `{…}` keeps the value's type.
 */

export const MAX_TEMPLATE_LENGTH = 4096;
const MAX_PLACEHOLDERS = 64;
const MAX_RESULT_LENGTH = 65_536;

export const ROOT_NAMES = [
  'node',
  'ports',
  'port_groups',
  'inventory',
  'plugin_data',
  'item',
] as const;
export type RootName = (typeof ROOT_NAMES)[number];

export type Scope = Partial<Record<RootName, unknown>>;

export type MissingKeys = 'null' | 'error';

export interface Reader {
  readonly scope: Scope;
  readonly mask: boolean;
  /** Cached while the data is unchanged (`stable`: for good, as rules never change the inventory). */
  masked(value: object, stable: boolean): unknown;
}

interface Key {
  name: string;
  /** Negative counts from the end of a list. */
  index: number | null;
  secret: boolean;
  /** `constructor`, `__proto__`: only an own property counts. */
  inherited: boolean;
}

interface Lookup {
  source: string;
  /** Null when the name is none of ROOT_NAMES: the lookup then finds nothing. */
  root: RootName | null;
  name: string;
  keys: Key[];
  conversion: Conversion | null;
  spec: FormatSpec | null;
}

interface Template {
  parts: (string | Lookup)[];
  whole?: Lookup;
}

const cache = new Map<string, Template>();

export function parseTemplate(text: string): Template {
  const cached = cache.get(text);
  if (cached) return cached;
  if (text.length > MAX_TEMPLATE_LENGTH)
    throw new RuleError(`argument longer than ${MAX_TEMPLATE_LENGTH} characters`);
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
    if (++lookups > MAX_PLACEHOLDERS)
      throw new RuleError(`more than ${MAX_PLACEHOLDERS} placeholders in one argument`);
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

/** As Python's format: `[0]` is the integer 0, anything else a string key, `[-1]` included. */
function key(name: string, attribute: boolean): Key {
  return {
    name,
    index: !attribute && /^\d{1,9}$/.test(name) ? Number(name) : null,
    secret: isSecretKey(name),
    inherited: name in Object.prototype,
  };
}

/** As Python's parser: the first `!` or `:` outside brackets. */
function fieldEnd(source: string): number {
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '[') depth++;
    else if (c === ']') depth = Math.max(0, depth - 1);
    else if ((c === '!' || c === ':') && depth === 0) return i;
  }
  return source.length;
}

function parseLookup(source: string): Lookup {
  const end = fieldEnd(source);
  const field = source.slice(0, end);
  let conversion: Conversion | null = null;
  let spec: FormatSpec | null = null;
  let rest = source.slice(end);
  if (rest.startsWith('!')) {
    conversion = parseConversion(
      rest.slice(1, rest.includes(':') ? rest.indexOf(':') : undefined),
      source,
    );
    rest = rest.includes(':') ? rest.slice(rest.indexOf(':')) : '';
  }
  if (rest.startsWith(':') && rest.length > 1) spec = parseFormatSpec(rest.slice(1), source);
  const head = /^[A-Za-z_][A-Za-z0-9_]*/.exec(field);
  if (!head) throw new RuleError(`{${source}} must start with one of ${ROOT_NAMES.join(', ')}`);
  const keys: Key[] = [];
  let i = head[0].length;
  while (i < field.length) {
    if (field[i] === '.') {
      const attr = /^[A-Za-z_][A-Za-z0-9_]*/.exec(field.slice(i + 1));
      if (!attr) throw new RuleError(`bad attribute in {${source}}`);
      // Python reaches into objects through dunder attributes (`{node.__class__}`): never.
      if (attr[0].startsWith('__'))
        throw new RuleError(`{${source}}: only lookups are allowed, no dunder attributes`);
      // In Ironic only the node is an object with attributes; everything else is a dict.
      if (
        (ROOT_NAMES as readonly string[]).includes(head[0]) &&
        (head[0] !== 'node' || keys.length > 0)
      ) {
        throw new RuleError(
          `{${source}}: .${attr[0]} is an attribute, which only the node has in Ironic; write [${attr[0]}]`,
        );
      }
      keys.push(key(attr[0], true));
      i += 1 + attr[0].length;
    } else if (field[i] === '[') {
      const close = field.indexOf(']', i);
      if (close < 0 || close === i + 1) throw new RuleError(`bad index in {${source}}`);
      keys.push(key(field.slice(i + 1, close), false));
      i = close + 1;
    } else {
      throw new RuleError(`only lookups are allowed in {${source}}`);
    }
  }
  const root = (ROOT_NAMES as readonly string[]).includes(head[0]) ? (head[0] as RootName) : null;
  return { source, root, name: head[0], keys, conversion, spec };
}

export function literalText(text: string): string | null {
  const { parts } = parseTemplate(text);
  return parts.every((part) => typeof part === 'string') ? parts.join('') : null;
}

export function templateRoots(text: string): string[] {
  return parseTemplate(text)
    .parts.filter((p): p is Lookup => typeof p !== 'string')
    .map((p) => p.name);
}

function lookup(reader: Reader, ref: Lookup): unknown {
  // `{constructor}` is a missing key, not an inherited property.
  if (ref.root === null) return undefined;
  const { mask, scope } = reader;
  let current = scope[ref.root];
  const { keys } = ref;
  for (let i = 0; i < keys.length && current !== undefined; i++) {
    const k = keys[i];
    if (typeof current !== 'object' || current === null) return undefined;
    if (Array.isArray(current)) {
      if (k.index === null) return undefined;
      current = current[k.index];
      continue;
    }
    // JSON dicts have no integer keys.
    if (k.index !== null) return undefined;
    const object = current as Record<string, unknown>;
    current = k.inherited && !Object.hasOwn(object, k.name) ? undefined : object[k.name];
    // Masking at lookup costs nothing when no secret is read, unlike masked copies of all the data.
    if (mask && k.secret && current !== null && current !== undefined) return MASK;
  }
  return mask && typeof current === 'object' && current !== null
    ? reader.masked(current, ref.root === 'inventory')
    : current;
}

function resolve(reader: Reader, ref: Lookup, missing: MissingKeys): unknown {
  const found = lookup(reader, ref);
  if (found === undefined) {
    if (missing === 'error') throw new RuleError(`{${ref.source}} does not exist`);
    return found;
  }
  return ref.conversion || ref.spec ? pythonFormat(found, ref.conversion, ref.spec) : found;
}

const enum Kind {
  Literal,
  Whole,
  Text,
  List,
  Dict,
  TemplatedDict,
}

/** One class for every kind: the hot path sees a single object shape and no per-rule closures. */
export class CompiledArgument {
  constructor(
    readonly kind: Kind,
    readonly value: unknown,
    readonly ref: Lookup | null = null,
    readonly parts: (string | Lookup)[] = [],
    /** List: per item (null = as written); Dict: per key in `keys`. */
    readonly children: (CompiledArgument | null)[] = [],
    readonly keys: string[] = [],
    readonly keyTemplates: (CompiledArgument | null)[] = [],
  ) {}
}

function compileString(text: string): CompiledArgument | null {
  if (!text.includes('{') && !text.includes('}')) return null;
  const { parts, whole } = parseTemplate(text);
  if (whole) return new CompiledArgument(Kind.Whole, text, whole);
  if (parts.every((part) => typeof part === 'string'))
    return new CompiledArgument(Kind.Literal, parts.join(''));
  return new CompiledArgument(Kind.Text, text, null, parts);
}

/** Null when there is nothing to interpolate. */
export function compileArgument(value: unknown): CompiledArgument | null {
  if (typeof value === 'string') return compileString(value);
  if (Array.isArray(value)) {
    const items = value.map(compileArgument);
    return items.every((item) => item === null)
      ? null
      : new CompiledArgument(Kind.List, value, null, [], items);
  }
  if (isPlainObject(value)) {
    // Ironic formats keys too.
    const templatedKeys = Object.keys(value).some((key) => compileString(key) !== null);
    if (templatedKeys) {
      const keys = Object.keys(value);
      return new CompiledArgument(
        Kind.TemplatedDict,
        value,
        null,
        [],
        keys.map((key) => compileArgument(value[key])),
        keys,
        keys.map(compileString),
      );
    }
    const keys = Object.keys(value).filter((key) => compileArgument(value[key]) !== null);
    if (!keys.length) return null;
    return new CompiledArgument(
      Kind.Dict,
      value,
      null,
      [],
      keys.map((key) => compileArgument(value[key])),
      keys,
    );
  }
  return null;
}

/** Text that is no template is used as written, as Ironic does when formatting fails. */
export function compileLenient(value: unknown): CompiledArgument | null {
  try {
    return compileArgument(value);
  } catch (error) {
    if (error instanceof RuleError) return null;
    throw error;
  }
}

/**
 * `formatted`: the arguments Ironic interpolates outside a loop; null in a loop, where Ironic
 * formats every argument and keeps as written what does not format.
 */
export function compileArguments(
  args: Record<string, unknown>,
  formatted: readonly string[] | null,
): CompiledArgument | null {
  const keys: string[] = [];
  const children: CompiledArgument[] = [];
  for (const [name, value] of Object.entries(args)) {
    const compiled =
      formatted === null
        ? (compileLenient(value) ?? null)
        : formatted.includes(name)
          ? compileArgument(value)
          : null;
    if (compiled) {
      keys.push(name);
      children.push(compiled);
    }
  }
  return keys.length ? new CompiledArgument(Kind.Dict, args, null, [], children, keys) : null;
}

export function resolveArgument(
  arg: CompiledArgument,
  reader: Reader,
  missing: MissingKeys,
): unknown {
  switch (arg.kind) {
    case Kind.Literal:
      return arg.value;
    case Kind.Whole:
      return resolve(reader, arg.ref as Lookup, missing) ?? null;
    case Kind.Text: {
      let out = '';
      for (const part of arg.parts) {
        if (typeof part === 'string') {
          out += part;
          continue;
        }
        const found = resolve(reader, part, missing);
        // Null rather than a half-built string.
        if (found === undefined) return null;
        // As Python's str.format writes it: None, True, ['a', 1].
        out += pythonStr(found);
        if (out.length > MAX_RESULT_LENGTH)
          throw new RuleError(`interpolated argument longer than ${MAX_RESULT_LENGTH}`);
      }
      return out;
    }
    case Kind.List: {
      const out = (arg.value as unknown[]).slice();
      for (let i = 0; i < arg.children.length; i++) {
        const child = arg.children[i];
        if (child) out[i] = resolveArgument(child, reader, missing);
      }
      return out;
    }
    case Kind.Dict: {
      // A spread copies own properties as data (a `__proto__` key included).
      const out: Record<string, unknown> = { ...(arg.value as Record<string, unknown>) };
      for (let i = 0; i < arg.keys.length; i++)
        setOwn(
          out,
          arg.keys[i],
          resolveArgument(arg.children[i] as CompiledArgument, reader, missing),
        );
      return out;
    }
    case Kind.TemplatedDict: {
      const written = arg.value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (let i = 0; i < arg.keys.length; i++) {
        const keyTemplate = arg.keyTemplates[i];
        const child = arg.children[i];
        const name = keyTemplate
          ? pythonStr(resolveArgument(keyTemplate, reader, missing))
          : arg.keys[i];
        setOwn(out, name, child ? resolveArgument(child, reader, missing) : written[arg.keys[i]]);
      }
      return out;
    }
  }
}
