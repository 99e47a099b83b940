import { cursorId, decodePageToken, encodePageToken } from './page-token';

const query =
  'projects/a/locations/global/firewallPolicies/p/experiments/e\ntransition = ALLOW_TO_DENY';

describe('page tokens', () => {
  it('round-trips a cursor for the same query', () => {
    const token = encodePageToken(query, { c: 3, t: '2025-01-01 00:00:00.123+00', f: 12345 });
    expect(decodePageToken(token, query)).toEqual({
      c: 3,
      t: '2025-01-01 00:00:00.123+00',
      f: 12345,
    });
  });

  it('refuses a token of another query, a forged one or garbage', () => {
    const token = encodePageToken(query, { c: 3, f: 9 });
    expect(decodePageToken(token, `${query} AND destPort = 22`)).toBeUndefined();
    const forged = Buffer.from(JSON.stringify({ q: 'x', c: { c: 1 } })).toString('base64url');
    expect(decodePageToken(forged, query)).toBeUndefined();
    for (const junk of ['', 'not a token', '%%%', 'eyJ9', 'a'.repeat(500), 42])
      expect(decodePageToken(junk, query)).toBeUndefined();
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
