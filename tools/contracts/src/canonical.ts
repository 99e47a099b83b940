import { canonicalJson } from '@rollout/contracts';
import { createHash } from 'node:crypto';
import type { JsonSchema } from './model';

/** Keywords that document and do not constrain: left out of the canonical form and the hash. */
const ANNOTATIONS = new Set([
  'description',
  'title',
  '$comment',
  'examples',
  'markdownDescription',
  '$schema',
  '$id',
]);
const UNORDERED = new Set(['required', 'enum', 'type', 'anyOf', 'oneOf']);

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const child = (value as Record<string, unknown>)[key];
    if (child !== undefined) sorted[key] = sortKeys(child);
  }
  return sorted;
}

/** Annotations stripped, keys and unordered lists sorted, so equal contracts give byte-equal text. */
export function canonicalize(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(canonicalize);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(schema).sort()) {
    if (ANNOTATIONS.has(key)) continue;
    const value = (schema as Record<string, unknown>)[key];
    if (value === undefined) continue;
    if (key === 'properties' || key === 'definitions' || key === 'patternProperties') {
      // A map of names to schemas: the names are data, not keywords.
      const map: Record<string, unknown> = {};
      for (const name of Object.keys(value as object).sort()) {
        map[name] = canonicalize((value as Record<string, unknown>)[name]);
      }
      out[key] = map;
    } else if (key === 'enum' || key === 'const' || key === 'default') {
      out[key] = key === 'enum' ? sortByText((value as unknown[]).map(sortKeys)) : sortKeys(value);
    } else if (UNORDERED.has(key) && Array.isArray(value)) {
      out[key] = sortByText(value.map(canonicalize));
    } else {
      out[key] = canonicalize(value);
    }
  }
  return out;
}

function sortByText(values: unknown[]): unknown[] {
  return values
    .map((value) => [JSON.stringify(value), value] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, value]) => value);
}

export function canonicalDefinitions(
  definitions: Record<string, JsonSchema>,
): Record<string, JsonSchema> {
  return canonicalize(definitions) as Record<string, JsonSchema>;
}

export function contentHash(content: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(content)).digest('hex')}`;
}
