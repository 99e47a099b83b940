import { LeaseRequest } from './model';
import { updateNeedsChecks } from './update-rule';

const current: LeaseRequest = {
  name: 'gpu-week',
  startDate: new Date('2026-12-01T00:00:00Z'),
  endDate: new Date('2026-12-08T00:00:00Z'),
  reservations: [
    {
      resourceType: 'physical:host',
      min: 1,
      max: 2,
      extra: { hypervisor_properties: '[]', allocations: [{ id: '1' }] },
    },
  ],
};

describe('which updates pass the chain', () => {
  it('runs no filter for a rename, or for an update that sends back what the lease holds', () => {
    expect(updateNeedsChecks(current, { ...current, name: 'gpu-week-2' })).toBe(false);
    expect(updateNeedsChecks(current, { ...current })).toBe(false);
    const sameInstant = { ...current, startDate: new Date('2026-12-01T01:00:00+01:00') };
    expect(updateNeedsChecks(current, sameInstant)).toBe(false);
    const reordered = {
      ...current,
      reservations: [
        {
          extra: { allocations: [{ id: '1' }], hypervisor_properties: '[]' },
          max: 2,
          min: 1,
          resourceType: 'physical:host',
        },
      ],
    };
    expect(updateNeedsChecks(current, reordered)).toBe(false);
  });

  it('runs the chain when a date or anything in the reservations changes', () => {
    expect(
      updateNeedsChecks(current, { ...current, endDate: new Date('2026-12-09T00:00:00Z') }),
    ).toBe(true);
    expect(
      updateNeedsChecks(current, { ...current, startDate: new Date('2026-12-02T00:00:00Z') }),
    ).toBe(true);
    expect(
      updateNeedsChecks(current, {
        ...current,
        reservations: [{ ...current.reservations[0], max: 3 }],
      }),
    ).toBe(true);
    expect(
      updateNeedsChecks(current, {
        ...current,
        reservations: [
          {
            ...current.reservations[0],
            extra: { hypervisor_properties: '[]', allocations: [{ id: '2' }] },
          },
        ],
      }),
    ).toBe(true);
    expect(updateNeedsChecks(current, { ...current, reservations: [] })).toBe(true);
  });
});
