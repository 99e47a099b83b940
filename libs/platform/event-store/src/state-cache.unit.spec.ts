import { StateCache } from './state-cache';

const at = (version: number) => ({ version });

describe('StateCache', () => {
  it('keeps the later state when commands finish out of order', () => {
    const cache = new StateCache<{ version: number }>(10);
    cache.remember('a', at(3), 1);
    cache.remember('a', at(2), 1);
    expect(cache.get('a')).toEqual(at(3));
    cache.remember('a', at(4), 1);
    expect(cache.get('a')).toEqual(at(4));
    cache.forget('a');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.weight).toBe(0);
  });

  it('forgets the least recently used streams once the weight held passes its bound', () => {
    const cache = new StateCache<{ version: number }>(10);
    cache.remember('a', at(1), 4);
    cache.remember('b', at(1), 4);
    cache.get('a'); // a is now more recently used than b
    cache.remember('c', at(1), 4);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toEqual(at(1));
    expect(cache.get('c')).toEqual(at(1));
    expect(cache.weight).toBe(8);
    // A stream that grows is weighed again; one heavier than the whole bound is not held.
    cache.remember('a', at(2), 7);
    expect(cache.get('c')).toBeUndefined();
    expect(cache.weight).toBe(7);
    cache.remember('huge', at(1), 11);
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('a')).toEqual(at(2));
  });

  it('refuses a bound that could hold nothing', () => {
    expect(() => new StateCache(0)).toThrow('must be positive');
  });
});
