import { StatusError } from '@rollout/contracts';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

export function pageSizeOf(pageSize: number | undefined): number {
  if (pageSize === undefined || pageSize === 0) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 0) {
    throw StatusError.invalidArgument('pageSize must be a positive integer.', [
      { field: 'pageSize', description: 'must be a positive integer' },
    ]);
  }
  return Math.min(pageSize, MAX_PAGE_SIZE);
}

/** Page tokens are opaque: the last name of the page, in a form clients should not build. */
export function encodePageToken(lastName: string, query: string): string {
  return Buffer.from(JSON.stringify({ after: lastName, query })).toString('base64url');
}

/** The name to continue after; a token of another query or not ours is INVALID_ARGUMENT. */
export function decodePageToken(token: string | undefined, query: string): string | undefined {
  if (!token) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
      after?: unknown;
      query?: unknown;
    };
    if (typeof parsed.after === 'string' && parsed.query === query) return parsed.after;
  } catch {
    // fall through
  }
  throw StatusError.invalidArgument('pageToken is not valid for this request.', [
    { field: 'pageToken', description: 'use the nextPageToken of the same list request' },
  ]);
}
