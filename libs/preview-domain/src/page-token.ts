import { createHash } from 'node:crypto';

/** Where a page of preview logs stopped: the last record returned, by configuration and store order. */
export interface LogCursor {
  configuration: number;
  seq: number;
}

export interface LogQuery {
  name: string;
  changedOnly: boolean;
}

const fingerprint = (query: LogQuery) =>
  createHash('sha256').update(`${query.name}\n${query.changedOnly ? 1 : 0}`).digest('base64url').slice(0, 12);

/** An opaque token that is only valid for the same query (AIP-158). */
export function encodePageToken(query: LogQuery, cursor: LogCursor): string {
  return Buffer.from(JSON.stringify({ q: fingerprint(query), c: cursor.configuration, s: cursor.seq })).toString('base64url');
}

/** The cursor of a token issued for this query; undefined for anything else. */
export function decodePageToken(token: string, query: LogQuery): LogCursor | undefined {
  if (typeof token !== 'string' || token.length > 200 || !/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const { q, c, s } = (decoded ?? {}) as { q?: unknown; c?: unknown; s?: unknown };
  if (q !== fingerprint(query) || !Number.isSafeInteger(c) || !Number.isSafeInteger(s)) return undefined;
  if ((c as number) < 1 || (s as number) < 1) return undefined;
  return { configuration: c as number, seq: s as number };
}
