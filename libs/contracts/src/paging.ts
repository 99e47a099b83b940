import {
  PREVIEW_LOGS_DEFAULT_PAGE_SIZE,
  PREVIEW_LOGS_MAX_PAGE_SIZE,
  PREVIEW_REPORT_DEFAULT_PAGE_SIZE,
  PREVIEW_REPORT_MAX_PAGE_SIZE,
} from './preview/v1';
import { StatusError } from './status';

/**
 * AIP-158 paging, written once for every list: page sizes (absent or 0 is the default, more than
 * the maximum is the maximum, anything else not a whole number is INVALID_ARGUMENT) and opaque
 * page tokens that only the query that issued them accepts. No Node API: the console uses it too.
 */
export interface PageSizes {
  readonly default: number;
  readonly max: number;
}

/** experiment.v1 lists (policies, experiments, revisions). */
export const LIST_PAGE_SIZES: PageSizes = { default: 50, max: 500 };
/** preview.v1 lists (previewFlows, previewLogs). */
export const PREVIEW_PAGE_SIZES: PageSizes = {
  default: PREVIEW_LOGS_DEFAULT_PAGE_SIZE,
  max: PREVIEW_LOGS_MAX_PAGE_SIZE,
};
/** previewReport's configurations. */
export const PREVIEW_REPORT_PAGE_SIZES: PageSizes = {
  default: PREVIEW_REPORT_DEFAULT_PAGE_SIZE,
  max: PREVIEW_REPORT_MAX_PAGE_SIZE,
};

export function pageSizeOf(value: unknown, sizes: PageSizes = LIST_PAGE_SIZES): number {
  if (value === undefined || value === null || value === 0) return sizes.default;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw StatusError.invalidArgument('pageSize must be a positive integer.', [
      { field: 'pageSize', description: `1-${sizes.max}, or 0 for ${sizes.default}` },
    ]);
  }
  return Math.min(value, sizes.max);
}

/** Where a page ends, in the list's own terms (a name, a sequence, a time…). */
export type PageCursor = Record<string, string | number>;

/** A token longer than this is none we issued (a cursor holds a few names and numbers). */
export const PAGE_TOKEN_MAX_LENGTH = 1024;

/** The one error for a page token the query cannot continue from. */
export const invalidPageToken = (message = 'The page token is not one this query issued.') =>
  StatusError.invalidArgument(message, [
    {
      field: 'pageToken',
      description: 'use the nextPageToken of the previous page of the same query',
    },
  ]);

/**
 * The next page's token: the cursor beside a fingerprint of the query (the list's parent and
 * filter, as the caller spells them), so a token of another query is refused.
 */
export function encodePageToken(query: string, cursor: PageCursor): string {
  return toBase64Url(JSON.stringify({ q: fingerprint(query), c: cursor }));
}

/**
 * The cursor of `token`: undefined for no token (the first page); INVALID_ARGUMENT for a token
 * of another query, a forged one or garbage. What the cursor's fields hold is the caller's to
 * check (and to refuse with invalidPageToken).
 */
export function decodePageToken(
  token: unknown,
  query: string,
): Record<string, unknown> | undefined {
  if (token === undefined || token === null || token === '') return undefined;
  if (
    typeof token !== 'string' ||
    token.length > PAGE_TOKEN_MAX_LENGTH ||
    !/^[A-Za-z0-9_-]+$/.test(token)
  )
    throw invalidPageToken();
  let decoded: unknown;
  try {
    decoded = JSON.parse(fromBase64Url(token));
  } catch {
    throw invalidPageToken();
  }
  const { q, c } = (decoded ?? {}) as { q?: unknown; c?: unknown };
  if (q !== fingerprint(query) || typeof c !== 'object' || c === null || Array.isArray(c))
    throw invalidPageToken();
  return c as Record<string, unknown>;
}

/** Lists paged by a unique text key (a name, an id): the token holds the last key of its page. */
export const encodeKeyPageToken = (query: string, lastKey: string): string =>
  encodePageToken(query, { after: lastKey });

/** The key to continue after (undefined on the first page); any other token is INVALID_ARGUMENT. */
export function decodeKeyPageToken(token: unknown, query: string): string | undefined {
  const cursor = decodePageToken(token, query);
  if (cursor === undefined) return undefined;
  if (typeof cursor.after !== 'string') throw invalidPageToken();
  return cursor.after;
}

/** A positive safe integer from a decoded cursor, or undefined. */
export const cursorId = (value: unknown): number | undefined =>
  Number.isSafeInteger(value) && (value as number) > 0 ? (value as number) : undefined;

/**
 * 64 bits of FNV-1a over the query's UTF-8 (two lanes). Not a secret: the gateway signs every
 * token it hands out, so this only has to tell one query from another.
 */
function fingerprint(query: string): string {
  let low = 0x811c9dc5;
  let high = 0xcbf29ce4;
  for (const byte of new TextEncoder().encode(query)) {
    low = Math.imul(low ^ byte, 0x01000193);
    high = Math.imul(high ^ byte ^ (low >>> 24), 0x01000193);
  }
  return (high >>> 0).toString(36) + (low >>> 0).toString(36).padStart(7, '0');
}

function toBase64Url(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Throws on anything that is not base64url of UTF-8. */
function fromBase64Url(token: string): string {
  const binary = atob(token.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}
