import { StatusError } from '@rollout/contracts';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

export function pageSizeOf(pageSize: unknown): number {
  if (pageSize === undefined || pageSize === null || pageSize === 0) return DEFAULT_PAGE_SIZE;
  if (typeof pageSize !== 'number' || !Number.isInteger(pageSize) || pageSize < 0) {
    throw StatusError.invalidArgument('pageSize must be a positive integer.', [
      { field: 'pageSize', description: 'must be a positive integer' },
    ]);
  }
  return Math.min(pageSize, MAX_PAGE_SIZE);
}

/** Opaque page tokens: where to continue, bound to the query they belong to. */
export function encodePageToken(after: string, query: string): string {
  return Buffer.from(JSON.stringify({ after, query })).toString('base64url');
}

export function decodePageToken(token: unknown, query: string): string | undefined {
  if (token === undefined || token === null || token === '') return undefined;
  if (typeof token === 'string' && token.length <= 1024) {
    try {
      const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
        after?: unknown;
        query?: unknown;
      };
      if (typeof parsed.after === 'string' && parsed.query === query) return parsed.after;
    } catch {
      // fall through
    }
  }
  throw StatusError.invalidArgument('pageToken is not valid for this request.', [
    { field: 'pageToken', description: 'use the nextPageToken of the same list request' },
  ]);
}
