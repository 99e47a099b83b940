import { decodePageToken, encodePageToken, invalidPageToken } from '@rollout/contracts';

/**
 * experiment.v1 lists page by name (AIP-158, the shared paging of @rollout/contracts): a token
 * holds the last name of its page, bound to the list's query (its parent and filter).
 */
export const encodeNamePageToken = (query: string, lastName: string): string =>
  encodePageToken(query, { after: lastName });

/** The name to continue after (undefined on the first page); any other token is INVALID_ARGUMENT. */
export function decodeNamePageToken(token: string | undefined, query: string): string | undefined {
  const cursor = decodePageToken(token, query);
  if (cursor === undefined) return undefined;
  if (typeof cursor.after !== 'string') throw invalidPageToken();
  return cursor.after;
}
