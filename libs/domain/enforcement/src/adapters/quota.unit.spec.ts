import { LeaseRequest } from '../model';
import { endedAt, grantOutcome, quotaAmounts, quotaRequest, resourceHours } from './quota';
import { OK_STATUS } from './wire';

const lease = (
  hours: number,
  reservations: LeaseRequest['reservations'],
  start = '2026-12-01T00:00:00Z',
): LeaseRequest => ({
  name: 'l',
  startDate: new Date(start),
  endDate: new Date(new Date(start).getTime() + hours * 3_600_000),
  reservations,
});

describe('quota', () => {
  it('counts resource-hours per type: hosts by max, instances by amount, rounded up', () => {
    const l = lease(2.5, [
      { resourceType: 'physical:host', min: 1, max: 2 },
      { resourceType: 'physical:host', min: 1, max: 1 },
      { resourceType: 'virtual:instance', amount: 3 },
    ]);
    expect(resourceHours(l)).toEqual({ 'physical:host': 8, 'virtual:instance': 8 });
  });

  it('asks for the whole lease on create and only the growth on update', () => {
    const small = lease(2, [{ resourceType: 'physical:host', min: 1, max: 1 }]);
    const big = lease(5, [
      { resourceType: 'physical:host', min: 1, max: 1 },
      { resourceType: 'virtual:instance', amount: 1 },
    ]);
    expect(quotaAmounts(small)).toEqual({ 'physical:host': 2 });
    expect(quotaAmounts(big, small)).toEqual({ 'physical:host': 3, 'virtual:instance': 5 });
    expect(quotaAmounts(small, big)).toEqual({});
  });

  it('denies when a type is granted less than asked, unless best effort', () => {
    const request = quotaRequest({ 'physical:host': 10, 'virtual:instance': 4 }, 'd1');
    expect(
      grantOutcome('acme', request, {
        status: OK_STATUS,
        quotas: {
          'physical:host': { grantedAmount: 10, validDuration: 0 },
          'virtual:instance': { grantedAmount: 4, validDuration: 0 },
        },
      }),
    ).toEqual({
      granted: { 'physical:host': 10, 'virtual:instance': 4 },
    });
    const short = grantOutcome('acme', request, {
      status: { ...OK_STATUS, message: 'budget of project p1: 3 left' },
      quotas: { 'physical:host': { grantedAmount: 3, validDuration: 0 } },
    });
    expect(short.denial).toBe(
      'Quota from adapter acme refused: 10 physical:host resource-hours asked, 3 granted; 4 virtual:instance resource-hours asked, 0 granted (budget of project p1: 3 left).',
    );
    expect(short.granted).toEqual({ 'physical:host': 3 });
    const effort = quotaRequest({ 'physical:host': 10 }, 'd2', true);
    expect(
      grantOutcome('acme', effort, {
        status: OK_STATUS,
        quotas: { 'physical:host': { grantedAmount: 2, validDuration: 0 } },
      }).denial,
    ).toBeUndefined();
  });

  it('ends quota use now, never before the start nor after the end', () => {
    const l = lease(10, [], '2026-12-01T00:00:00Z');
    expect(endedAt(l, new Date('2026-11-30T00:00:00Z')).toISOString()).toBe(
      '2026-12-01T00:00:00.000Z',
    );
    expect(endedAt(l, new Date('2026-12-01T04:00:00Z')).toISOString()).toBe(
      '2026-12-01T04:00:00.000Z',
    );
    expect(endedAt(l, new Date('2026-12-02T00:00:00Z')).toISOString()).toBe(
      '2026-12-01T10:00:00.000Z',
    );
  });
});
