import { createHash } from 'node:crypto';

/**
 * Opaque page tokens (AIP-158) that are only valid for the query that issued them: the token
 * carries a fingerprint of the query beside the cursor, and a token of another query, a forged
 * one or garbage decodes to nothing. What a cursor holds is the caller's to check.
 */
const fingerprint = (query: string) =>
  createHash('sha256').update(query).digest('base64url').slice(0, 12);

export type Cursor = Record<string, string | number>;

export function encodePageToken(query: string, cursor: Cursor): string {
  return Buffer.from(JSON.stringify({ q: fingerprint(query), c: cursor })).toString('base64url');
}

/** The cursor of a token issued for this query; undefined for anything else. */
export function decodePageToken(
  token: unknown,
  query: string,
): Record<string, unknown> | undefined {
  if (typeof token !== 'string' || token.length > 256 || !/^[A-Za-z0-9_-]+$/.test(token))
    return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const { q, c } = (decoded ?? {}) as { q?: unknown; c?: unknown };
  if (q !== fingerprint(query) || typeof c !== 'object' || c === null || Array.isArray(c))
    return undefined;
  return c as Record<string, unknown>;
}

/** A positive safe integer from a decoded cursor, or undefined. */
export const cursorId = (value: unknown): number | undefined =>
  Number.isSafeInteger(value) && (value as number) > 0 ? (value as number) : undefined;
