import {
  LIST_PAGE_SIZES,
  PREVIEW_PAGE_SIZES,
  cursorId,
  decodeKeyPageToken,
  decodePageToken,
  encodeKeyPageToken,
  encodePageToken,
  pageSizeOf,
} from './paging';
import { StatusError } from './status';

const query =
  'projects/a/locations/global/firewallPolicies/p/experiments/e\ntransition = ALLOW_TO_DENY';

/** The status, message and field violations a call throws. */
function refusal(call: () => unknown) {
  try {
    call();
  } catch (error) {
    const status = error as StatusError;
    return { status: status.status, message: status.message, details: status.details };
  }
  throw new Error('expected a refusal');
}

describe('page sizes', () => {
  it('gives the default for an absent or zero size and caps a large one at the maximum', () => {
    expect([undefined, null, 0, 7, 500, 501, 10_000].map((size) => pageSizeOf(size))).toEqual([
      50, 50, 50, 7, 500, 500, 500,
    ]);
    expect([undefined, 1000, 1001].map((size) => pageSizeOf(size, PREVIEW_PAGE_SIZES))).toEqual([
      50, 1000, 1000,
    ]);
  });

  it('refuses a negative, fractional or non-numeric size with INVALID_ARGUMENT naming pageSize', () => {
    for (const size of [-1, 1.5, '10', Number.NaN]) {
      const refused = refusal(() => pageSizeOf(size, LIST_PAGE_SIZES));
      expect(refused.status).toBe('INVALID_ARGUMENT');
      expect(JSON.stringify(refused.details)).toContain('"field":"pageSize"');
    }
  });
});

describe('page tokens', () => {
  it('round-trips a cursor for the same query, and has no token for the first page', () => {
    const token = encodePageToken(query, { c: 3, t: '2025-01-01 00:00:00.123+00', f: 12345 });
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodePageToken(token, query)).toEqual({
      c: 3,
      t: '2025-01-01 00:00:00.123+00',
      f: 12345,
    });
    expect(decodePageToken(undefined, query)).toBeUndefined();
    expect(decodePageToken('', query)).toBeUndefined();
  });

  it('round-trips names outside ASCII', () => {
    const token = encodePageToken('projects/ü', { after: 'projects/ü/locations/日本' });
    expect(decodePageToken(token, 'projects/ü')).toEqual({ after: 'projects/ü/locations/日本' });
  });

  it('refuses a token of another query, a forged one or garbage with INVALID_ARGUMENT', () => {
    const token = encodePageToken(query, { c: 3, f: 9 });
    const forged = Buffer.from(JSON.stringify({ q: 'x', c: { c: 1 } })).toString('base64url');
    const notJson = Buffer.from('{"q":').toString('base64url');
    const notUtf8 = Buffer.from([0xff, 0xfe, 0x7b]).toString('base64url');
    for (const bad of [
      { token, query: `${query} AND destPort = 22` },
      { token, query: 'projects/a/locations/global/firewallPolicies/p' },
      { token: forged, query },
      { token: notJson, query },
      { token: notUtf8, query },
      ...['not a token', '%%%', 'eyJ9', 'a', 'a'.repeat(2000), 42].map((junk) => ({
        token: junk,
        query,
      })),
    ]) {
      expect(refusal(() => decodePageToken(bad.token, bad.query))).toEqual({
        status: 'INVALID_ARGUMENT',
        message: 'The page token is not one this query issued.',
        details: [
          expect.objectContaining({
            fieldViolations: [
              {
                field: 'pageToken',
                description: 'use the nextPageToken of the previous page of the same query',
              },
            ],
          }),
        ],
      });
    }
  });

  it('pages a list by its key: the last key of a page, refused for another query or another cursor', () => {
    expect(decodeKeyPageToken(encodeKeyPageToken(query, 'lease-7'), query)).toBe('lease-7');
    expect(decodeKeyPageToken(undefined, query)).toBeUndefined();
    expect(refusal(() => decodeKeyPageToken(encodeKeyPageToken('other', 'x'), query)).status).toBe(
      'INVALID_ARGUMENT',
    );
    expect(
      refusal(() => decodeKeyPageToken(encodePageToken(query, { seq: 3 }), query)).status,
    ).toBe('INVALID_ARGUMENT');
  });

  it('reads only positive safe integers as ids', () => {
    expect([1, 0, -1, 1.5, '1', 2 ** 60, undefined].map(cursorId)).toEqual([
      1,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
