import { decodePageToken, encodePageToken } from './page-token';

const query = { name: 'projects/a/locations/global/firewallPolicies/p/experiments/e', changedOnly: true };

describe('preview log page tokens', () => {
  it('round-trips a cursor for the same query', () => {
    const token = encodePageToken(query, { configuration: 3, seq: 12345 });
    expect(decodePageToken(token, query)).toEqual({ configuration: 3, seq: 12345 });
  });

  it('refuses a token of another query, a forged one or garbage', () => {
    const token = encodePageToken(query, { configuration: 3, seq: 9 });
    expect(decodePageToken(token, { ...query, changedOnly: false })).toBeUndefined();
    expect(decodePageToken(token, { ...query, name: `${query.name}x` })).toBeUndefined();
    const forged = Buffer.from(JSON.stringify({ q: 'x', c: 1, s: 1 })).toString('base64url');
    expect(decodePageToken(forged, query)).toBeUndefined();
    for (const junk of ['', 'not a token', '%%%', 'eyJ9', 'a'.repeat(500)]) expect(decodePageToken(junk, query)).toBeUndefined();
  });
});
