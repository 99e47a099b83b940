import { StateCache } from './state-cache';

const at = (version: number) => ({ version });

describe('StateCache', () => {
  it('keeps the later state when commands finish out of order', () => {
    const cache = new StateCache<{ version: number }>(10);
    cache.remember('a', at(3));
    cache.remember('a', at(2));
    expect(cache.get('a')).toEqual(at(3));
    cache.remember('a', at(4));
    expect(cache.get('a')).toEqual(at(4));
    cache.forget('a');
    expect(cache.get('a')).toBeUndefined();
  });

  it('forgets the least recently used stream beyond its capacity', () => {
    const cache = new StateCache<{ version: number }>(2);
    cache.remember('a', at(1));
    cache.remember('b', at(1));
    cache.get('a'); // a is now more recently used than b
    cache.remember('c', at(1));
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toEqual(at(1));
    expect(cache.get('c')).toEqual(at(1));
  });

  it('refuses a capacity that could hold nothing', () => {
    expect(() => new StateCache(0)).toThrow('positive integer');
  });
});
