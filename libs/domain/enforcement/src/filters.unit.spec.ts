import { MaxActiveLeasesFilter, MaxLeaseDurationFilter, MaxReservationSizeFilter } from './filters';
import { EnforcementContext, LeaseRequest, Reservation } from './model';

const context: EnforcementContext = {
  userId: 'u1',
  projectId: 'p1',
  regionName: 'RegionOne',
  requestId: 'r1',
};
const T0 = new Date('2026-11-22T10:00:00Z');
const leaseOf = (seconds: number, reservations: Reservation[] = []): LeaseRequest => ({
  name: 'l1',
  startDate: T0,
  endDate: new Date(T0.getTime() + seconds * 1000),
  reservations,
});

describe('MaxLeaseDuration', () => {
  const filter = new MaxLeaseDurationFilter(3600);

  it('allows a lease exactly at the maximum', async () => {
    expect(await filter.checkCreate(context, leaseOf(3600))).toBeUndefined();
  });

  it('denies a lease strictly longer, with the documented message', async () => {
    expect(await filter.checkCreate(context, leaseOf(3601))).toEqual({
      message:
        'Lease duration of 3601 seconds must be less than or equal to the maximum lease duration of 3600 seconds.',
    });
  });

  it('measures the new dates on update', async () => {
    expect(await filter.checkUpdate(context, leaseOf(60), leaseOf(7200))).toEqual({
      message:
        'Lease duration of 7200 seconds must be less than or equal to the maximum lease duration of 3600 seconds.',
    });
    expect(await filter.checkUpdate(context, leaseOf(7200), leaseOf(60))).toBeUndefined();
  });

  it('compares exactly: half a second over the maximum is over', async () => {
    const lease = { ...leaseOf(0), endDate: new Date(T0.getTime() + 3600_500) };
    expect(await filter.checkCreate(context, lease)).toEqual({
      message:
        'Lease duration of 3601 seconds must be less than or equal to the maximum lease duration of 3600 seconds.',
    });
  });

  it('has no limit when set to 0', async () => {
    expect(
      await new MaxLeaseDurationFilter(0).checkCreate(context, leaseOf(365 * 86400)),
    ).toBeUndefined();
  });
});

describe('MaxActiveLeases', () => {
  const lease = leaseOf(3600);

  it('allows while the project is under its limit and denies at the limit', async () => {
    const filter = new MaxActiveLeasesFilter(2, {});
    expect(await filter.checkCreate(context, lease, 1)).toBeUndefined();
    expect(await filter.checkCreate({ ...context, projectId: 'p2' }, lease, 2)).toEqual({
      message: 'Project p2 already has 2 pending or active leases; the maximum is 2.',
    });
  });

  it('uses the per-project override', async () => {
    const filter = new MaxActiveLeasesFilter(2, { p1: 5 });
    expect(await filter.checkCreate(context, lease, 4)).toBeUndefined();
  });

  it('does not count against updates', async () => {
    const filter = new MaxActiveLeasesFilter(1, {});
    expect(await filter.checkUpdate()).toBeUndefined();
  });
});

describe('MaxReservationSize', () => {
  const filter = new MaxReservationSizeFilter(
    { 'physical:host': 4, 'virtual:instance': 10, 'virtual:floatingip': 2 },
    { p1: { 'physical:host': 8 } },
  );
  const other = { ...context, projectId: 'p2' };

  it('sizes hosts by max, instances and floating IPs by amount', async () => {
    expect(
      await filter.checkCreate(
        other,
        leaseOf(60, [{ resourceType: 'physical:host', min: 1, max: 5 }]),
      ),
    ).toEqual({
      message: 'Reservation of 5 physical:host exceeds the maximum reservation size of 4.',
    });
    expect(
      await filter.checkCreate(
        other,
        leaseOf(60, [{ resourceType: 'virtual:instance', amount: 11 }]),
      ),
    ).toEqual({
      message: 'Reservation of 11 virtual:instance exceeds the maximum reservation size of 10.',
    });
    expect(
      await filter.checkCreate(
        other,
        leaseOf(60, [{ resourceType: 'virtual:floatingip', amount: 3 }]),
      ),
    ).toEqual({
      message: 'Reservation of 3 virtual:floatingip exceeds the maximum reservation size of 2.',
    });
    expect(
      await filter.checkCreate(
        other,
        leaseOf(60, [
          { resourceType: 'physical:host', min: 1, max: 4 },
          { resourceType: 'virtual:floatingip', amount: 2 },
        ]),
      ),
    ).toBeUndefined();
  });

  it('sizes a host reservation with only min by min', async () => {
    expect(
      await filter.checkCreate(other, leaseOf(60, [{ resourceType: 'physical:host', min: 5 }])),
    ).toEqual({
      message: 'Reservation of 5 physical:host exceeds the maximum reservation size of 4.',
    });
  });

  it('applies the per-project override', async () => {
    expect(
      await filter.checkCreate(
        context,
        leaseOf(60, [{ resourceType: 'physical:host', min: 1, max: 8 }]),
      ),
    ).toBeUndefined();
  });

  it('checks the new reservations on update', async () => {
    const small = leaseOf(60, [{ resourceType: 'virtual:instance', amount: 1 }]);
    const big = leaseOf(60, [{ resourceType: 'virtual:instance', amount: 20 }]);
    expect(await filter.checkUpdate(other, small, big)).toEqual({
      message: 'Reservation of 20 virtual:instance exceeds the maximum reservation size of 10.',
    });
  });

  it('ignores resource types without a limit', async () => {
    expect(
      await filter.checkCreate(other, leaseOf(60, [{ resourceType: 'network', amount: 100 }])),
    ).toBeUndefined();
  });
});
