import { PolicyContent, StatusError } from '@rollout/contracts';
import { validatePolicyContent } from '@rollout/domain/firewall';
import { etagOf } from './evolve';

const MAX_ANNOTATIONS = 64;
const MAX_ANNOTATION_KEY = 63;
const MAX_ANNOTATIONS_BYTES = 16 * 1024;

export function notFound(what: string, name: string): StatusError {
  return StatusError.withReason('NOT_FOUND', `${what} "${name}" not found.`, 'NOT_FOUND', {
    resource: name,
  });
}

export function checkEtag(field: string, given: string | undefined, name: string, version: number) {
  if (given !== undefined && given !== etagOf(name, version)) {
    throw StatusError.withReason(
      'ABORTED',
      `${field} does not match the current version of "${name}".`,
      'ETAG_MISMATCH',
      {
        resource: name,
      },
    );
  }
}

export function parseContent(input: unknown, field: string): PolicyContent {
  const { content, violations } = validatePolicyContent(input, field);
  if (!content)
    throw StatusError.invalidArgument(`${field} is not a valid firewall policy.`, violations);
  return content;
}

export function parseAnnotations(input: unknown): Record<string, string> {
  if (input === undefined || input === null) return {};
  const field = 'annotations';
  if (typeof input !== 'object' || Array.isArray(input))
    throw StatusError.invalidArgument('annotations must be a map of strings.', [
      { field, description: 'must be an object' },
    ]);
  const entries = Object.entries(input as Record<string, unknown>);
  const violations = [];
  if (entries.length > MAX_ANNOTATIONS)
    violations.push({ field, description: `at most ${MAX_ANNOTATIONS} entries` });
  let bytes = 0;
  for (const [key, value] of entries) {
    if (key.length === 0 || key.length > MAX_ANNOTATION_KEY)
      violations.push({
        field: `${field}.${key.slice(0, 80)}`,
        description: `keys are 1-${MAX_ANNOTATION_KEY} characters`,
      });
    if (typeof value !== 'string')
      violations.push({ field: `${field}.${key.slice(0, 80)}`, description: 'values are strings' });
    bytes += Buffer.byteLength(key) + Buffer.byteLength(String(value));
  }
  if (bytes > MAX_ANNOTATIONS_BYTES)
    violations.push({ field, description: 'at most 16 KiB in all' });
  if (violations.length)
    throw StatusError.invalidArgument('annotations are not valid.', violations.slice(0, 20));
  return input as Record<string, string>;
}

/** AIP-134; without a mask, every field present in the input is updated. */
export function masked(
  current: PolicyContent,
  input: Record<string, unknown>,
  paths: string[] | undefined,
  prefix: string,
): unknown {
  const fields = ['displayName', 'description', 'rules'];
  const chosen = paths ?? fields.filter((f) => input[f] !== undefined);
  const unknown = chosen.filter((p) => !fields.includes(p));
  if (unknown.length) {
    throw StatusError.invalidArgument(
      `updateMask names fields that cannot be updated: ${unknown.join(', ')}.`,
      unknown.map((p) => ({
        field: `updateMask.${prefix}${p}`,
        description: 'not an updatable field',
      })),
    );
  }
  const next: Record<string, unknown> = { ...current };
  for (const field of chosen) {
    if (input[field] === undefined) delete next[field];
    else next[field] = input[field];
  }
  return next;
}

export function parseMask(updateMask: string | undefined): string[] | undefined {
  if (updateMask === undefined || updateMask === '') return undefined;
  if (updateMask === '*') return undefined;
  return updateMask
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
}
