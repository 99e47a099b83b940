import type { Status } from '@rollout/contracts';
import { CheckCache, checkCacheKey } from './check-cache';
import { AdapterInstance, OK_STATUS } from './wire';

const instance = (requestId: string, projectId = 'p1', id = 'lease-1'): AdapterInstance => ({
  hook: 'create',
  context: { userId: 'u1', projectId, regionName: 'RegionOne', requestId },
  lease: {
    id,
    name: 'l',
    startDate: '2026-12-01T00:00:00.000Z',
    endDate: '2026-12-02T00:00:00.000Z',
    reservations: [{ resourceType: 'physical:host', min: 1, max: 2 }],
  },
});
const denied: Status = {
  code: 403,
  status: 'PERMISSION_DENIED',
  message: 'over budget',
  details: [],
};

describe('check cache', () => {
  let now = 1_000;
  const cache = () => new CheckCache({ now: () => now });
  beforeEach(() => (now = 1_000));

  it('keys by handler and instance, ignoring the request id and key order', () => {
    expect(checkCacheKey('h', instance('r1'))).toBe(checkCacheKey('h', instance('r2')));
    expect(checkCacheKey('h', instance('r1'))).not.toBe(checkCacheKey('h2', instance('r1')));
    expect(checkCacheKey('h', instance('r1'))).not.toBe(checkCacheKey('h', instance('r1', 'p2')));
  });

  it('never shares a result between two leases of the same shape (apiId is only another name of a lease)', () => {
    expect(checkCacheKey('h', instance('r1', 'p1', 'lease-1'))).not.toBe(
      checkCacheKey('h', instance('r1', 'p1', 'lease-2')),
    );
    const withApiId = (apiId: string): AdapterInstance => ({
      ...instance('r1'),
      lease: { ...instance('r1').lease, apiId },
    });
    expect(checkCacheKey('h', withApiId('a'))).toBe(checkCacheKey('h', withApiId('b')));
    const c = cache();
    c.put(checkCacheKey('h', instance('r1', 'p1', 'lease-1')), [
      { status: denied, validDuration: 60_000, validUseCount: 100 },
    ]);
    expect(c.take(checkCacheKey('h', instance('r2', 'p1', 'lease-2')))).toBeUndefined();
    expect(c.take(checkCacheKey('h', instance('r2', 'p1', 'lease-1')))?.status).toEqual(denied);
  });

  it('reuses a result until its duration passes', () => {
    const c = cache();
    c.put('k', [{ status: OK_STATUS, validDuration: 500, validUseCount: 100 }]);
    now = 1_499;
    expect(c.take('k')?.status).toEqual(OK_STATUS);
    now = 1_500;
    expect(c.take('k')).toBeUndefined();
  });

  it('reuses a result validUseCount times, then asks again', () => {
    const c = cache();
    c.put('k', [{ status: denied, validDuration: 60_000, validUseCount: 2 }]);
    expect(c.take('k')?.status).toEqual(denied);
    expect(c.take('k')?.status).toEqual(denied);
    expect(c.take('k')).toBeUndefined();
  });

  it('takes the minimum of each limit across results', () => {
    const c = cache();
    c.put('k', [
      { status: OK_STATUS, validDuration: 10_000, validUseCount: 1 },
      { status: OK_STATUS, validDuration: 100, validUseCount: 50 },
    ]);
    expect(c.take('k')).toBeDefined();
    expect(c.take('k')).toBeUndefined();
    c.put('k', [
      { status: OK_STATUS, validDuration: 10_000, validUseCount: 5 },
      { status: OK_STATUS, validDuration: 100, validUseCount: 50 },
    ]);
    now += 100;
    expect(c.take('k')).toBeUndefined();
  });

  it('stores nothing valid for 0 ms or 0 uses, and keeps at most maxEntries', () => {
    const c = new CheckCache({ now: () => now, maxEntries: 2 });
    c.put('a', [{ status: OK_STATUS, validDuration: 0, validUseCount: 5 }]);
    c.put('b', [{ status: OK_STATUS, validDuration: 50, validUseCount: 0 }]);
    expect(c.size).toBe(0);
    for (const k of ['x', 'y', 'z'])
      c.put(k, [{ status: OK_STATUS, validDuration: 50, validUseCount: 5 }]);
    expect(c.size).toBe(2);
    expect(c.take('x')).toBeUndefined();
    expect(c.take('z')).toBeDefined();
  });
});
