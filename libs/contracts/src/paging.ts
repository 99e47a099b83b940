import {
  PREVIEW_LOGS_DEFAULT_PAGE_SIZE,
  PREVIEW_LOGS_MAX_PAGE_SIZE,
  PREVIEW_REPORT_DEFAULT_PAGE_SIZE,
  PREVIEW_REPORT_MAX_PAGE_SIZE,
} from './preview/v1';
import { StatusError } from './status';

/** AIP-158 paging. No Node API: the console uses it too. */
export interface PageSizes {
  readonly default: number;
  readonly max: number;
}

/** experiment.v1 lists. */
export const LIST_PAGE_SIZES: PageSizes = { default: 50, max: 500 };
/** previewFlows, previewLogs. */
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

export type PageCursor = Record<string, string | number>;

/** A cursor holds a few names and numbers: anything longer is none we issued. */
export const PAGE_TOKEN_MAX_LENGTH = 1024;

export const invalidPageToken = (message = 'The page token is not one this query issued.') =>
  StatusError.invalidArgument(message, [
    {
      field: 'pageToken',
      description: 'use the nextPageToken of the previous page of the same query',
    },
  ]);

/** Carries a fingerprint of the query (parent and filter), so another query's token is refused. */
export function encodePageToken(query: string, cursor: PageCursor): string {
  return toBase64Url(JSON.stringify({ q: fingerprint(query), c: cursor }));
}

/** The caller checks the cursor's fields (and refuses them with invalidPageToken). */
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

/** For lists paged by a unique text key (a name, an id). */
export const encodeKeyPageToken = (query: string, lastKey: string): string =>
  encodePageToken(query, { after: lastKey });

export function decodeKeyPageToken(token: unknown, query: string): string | undefined {
  const cursor = decodePageToken(token, query);
  if (cursor === undefined) return undefined;
  if (typeof cursor.after !== 'string') throw invalidPageToken();
  return cursor.after;
}

export const cursorId = (value: unknown): number | undefined =>
  Number.isSafeInteger(value) && (value as number) > 0 ? (value as number) : undefined;

/** FNV-1a, not a secret: the gateway signs every token, so this only tells queries apart. */
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

function fromBase64Url(token: string): string {
  const binary = atob(token.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}
