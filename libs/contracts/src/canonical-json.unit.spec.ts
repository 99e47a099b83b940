import { canonicalJson } from './canonical-json';

describe('canonicalJson', () => {
  it('sorts object keys at every level and leaves undefined properties out', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: undefined }] })).toBe('{"a":[{"d":2}],"b":1}');
  });

  it('gives equal text for equal values written in another key order', () => {
    const one = {
      lease: { name: 'l', reservations: [{ resourceType: 'physical:host', min: 1 }] },
      hook: 'create',
    };
    const other = {
      hook: 'create',
      lease: { reservations: [{ min: 1, resourceType: 'physical:host' }], name: 'l' },
    };
    expect(canonicalJson(one)).toBe(canonicalJson(other));
  });

  it('keeps the order of arrays, which carries meaning', () => {
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
  });

  it('reads as JSON.stringify does for what needs no sorting', () => {
    const value = { a: 'quote " and \u0000', b: [1.5, null, true, undefined], c: { ü: -0 } };
    expect(canonicalJson(value)).toBe(JSON.stringify(value));
    expect(canonicalJson(undefined)).toBe('null');
  });
});
