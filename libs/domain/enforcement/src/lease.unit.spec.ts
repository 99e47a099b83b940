import { StatusError } from '@rollout/contracts';
import { parseBlazarCall } from './blazar';
import { admittedStatus, leaseFromCreate, leaseFromUpdate, reservationToApi } from './lease';
import { parseTimestamp } from './time';

const NOW = new Date('2026-11-22T10:00:00Z');

function violations(fn: () => unknown): Array<{ field: string; description: string }> {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(StatusError);
    const status = (error as StatusError).toStatus();
    expect(status.status).toBe('INVALID_ARGUMENT');
    const detail = status.details[0] as {
      fieldViolations: Array<{ field: string; description: string }>;
    };
    return detail.fieldViolations;
  }
  throw new Error('expected INVALID_ARGUMENT');
}

describe('timestamps', () => {
  it.each([
    ['2020-05-13 00:00', '2020-05-13T00:00:00.000Z'],
    ['2020-05-13T00:00:00', '2020-05-13T00:00:00.000Z'],
    ['2020-05-13 23:59:30.250', '2020-05-13T23:59:30.250Z'],
    ['2020-05-13T02:00:00+02:00', '2020-05-13T00:00:00.000Z'],
    ['2020-05-13T02:00:00+0200', '2020-05-13T00:00:00.000Z'],
    ['2020-05-12T19:00:00-05', '2020-05-13T00:00:00.000Z'],
    ['2020-05-13T00:00:00.123456789Z', '2020-05-13T00:00:00.123Z'],
    ['0099-01-01T00:00:00Z', '0099-01-01T00:00:00.000Z'],
  ])('reads %s (naive means UTC)', (text, iso) => {
    expect(parseTimestamp(text)?.toISOString()).toBe(iso);
  });

  it.each([
    '2020-02-30 00:00',
    '2020-13-01 00:00',
    '2020-05-13',
    'yesterday',
    '2020-05-13T24:00:00Z',
    '2020-05-13T00:00:00+25:00',
  ])('refuses %s', (text) => {
    expect(parseTimestamp(text)).toBeUndefined();
  });
});

describe('a lease from the API', () => {
  const valid = {
    name: 'gpu-week',
    startDate: '2026-11-23T00:00:00Z',
    endDate: '2026-11-24T00:00:00Z',
    reservations: [
      {
        resourceType: 'physical:host',
        min: 1,
        max: 2,
        resourceProperties: '["==", "$gpu", "a100"]',
        hypervisorProperties: '[]',
      },
      { resourceType: 'virtual:floatingip', amount: 1, networkId: 'ext-net' },
    ],
  };

  it('becomes the domain lease, plugin attributes in snake_case, and reads back the same', () => {
    const lease = leaseFromCreate(valid, 'id-1', NOW);
    expect(lease.startDate.toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect(lease.reservations).toEqual([
      {
        resourceType: 'physical:host',
        min: 1,
        max: 2,
        resourceProperties: '["==", "$gpu", "a100"]',
        extra: { hypervisor_properties: '[]' },
      },
      { resourceType: 'virtual:floatingip', amount: 1, extra: { network_id: 'ext-net' } },
    ]);
    expect(lease.reservations.map(reservationToApi)).toEqual(valid.reservations);
    expect(admittedStatus(lease, NOW)).toBe('PENDING');
  });

  it('starts now when the start is omitted, and is then ACTIVE', () => {
    const lease = leaseFromCreate({ endDate: '2026-11-22T11:00:00Z' }, 'id-1', NOW);
    expect(lease).toMatchObject({ name: 'id-1', startDate: NOW, reservations: [] });
    expect(admittedStatus(lease, NOW)).toBe('ACTIVE');
  });

  it('names every bad field at once', () => {
    const bad = {
      startDate: '2026-11-22T09:00:00Z',
      endDate: 'tomorrow',
      color: 'red',
      reservations: [
        { resourceType: 'physical:host', min: 3, max: 2 },
        { resourceType: 'virtual:instance' },
        { resourceType: 'virtual:floatingip', amount: 1, bogus: 1 },
      ],
    };
    expect(violations(() => leaseFromCreate(bad as never, 'x', NOW)).map((v) => v.field)).toEqual([
      'color',
      'endDate',
      'reservations[0].max',
      'reservations[1].amount',
      'reservations[2].bogus',
      'startDate',
    ]);
  });

  it('wants the end after the start and in the future', () => {
    expect(
      violations(() =>
        leaseFromCreate(
          { startDate: '2026-11-23T00:00:00Z', endDate: '2026-11-23T00:00:00Z' },
          'x',
          NOW,
        ),
      ),
    ).toEqual([{ field: 'endDate', description: 'must be after startDate' }]);
  });

  it('on update keeps what is not sent, and refuses moving the start of a started lease', () => {
    const current = leaseFromCreate(valid, 'x', NOW);
    const longer = leaseFromUpdate({ endDate: '2026-11-25T00:00:00Z' }, current, false, NOW);
    expect(longer).toEqual({ ...current, endDate: new Date('2026-11-25T00:00:00Z') });
    expect(
      violations(() => leaseFromUpdate({ startDate: '2026-11-23T06:00:00Z' }, current, true, NOW)),
    ).toEqual([{ field: 'startDate', description: 'cannot change once the lease has started' }]);
    expect(leaseFromUpdate({ startDate: '2026-11-23T00:00:00Z' }, current, true, NOW)).toEqual(
      current,
    );
  });
});

describe('a Blazar payload', () => {
  const spec = {
    context: {
      user_id: 'c631173e',
      project_id: 'a0b86a98',
      auth_url: 'https://api.example.com:5000/v3',
      region_name: 'RegionOne',
    },
    lease: {
      name: 'my-lease',
      start_date: '2020-05-13 00:00',
      end_time: '2020-05-14 23:59',
      reservations: [
        {
          resource_type: 'physical:host',
          min: 1,
          max: 2,
          hypervisor_properties: '[]',
          resource_properties: '["==", "$availability_zone", "az1"]',
          allocations: [
            { id: '1', hypervisor_hostname: '32af5a7a', extra: { availability_zone: 'az1' } },
          ],
        },
      ],
    },
  };

  it("reads the spec's own example (naive dates, end_time), keeping plugin attributes and allocations", () => {
    const call = parseBlazarCall(spec, false, 'req-1', 'DefaultRegion');
    expect(call.context).toEqual({
      userId: 'c631173e',
      projectId: 'a0b86a98',
      regionName: 'RegionOne',
      requestId: 'req-1',
      authUrl: 'https://api.example.com:5000/v3',
    });
    expect(call.lease.name).toBe('my-lease');
    expect(call.lease.lease.startDate.toISOString()).toBe('2020-05-13T00:00:00.000Z');
    expect(call.lease.lease.endDate.toISOString()).toBe('2020-05-14T23:59:00.000Z');
    expect(call.lease.lease.reservations[0]).toEqual({
      resourceType: 'physical:host',
      min: 1,
      max: 2,
      resourceProperties: '["==", "$availability_zone", "az1"]',
      extra: { hypervisor_properties: '[]', allocations: spec.lease.reservations[0].allocations },
    });
  });

  it('reads zoned dates and current_lease on update', () => {
    const call = parseBlazarCall(
      {
        context: spec.context,
        current_lease: { ...spec.lease, id: 'uuid-1' },
        lease: {
          id: 'uuid-1',
          name: 'my-lease',
          start_date: '2020-05-13T02:00:00+02:00',
          end_date: '2020-05-15T00:00:00Z',
        },
      },
      true,
      'req-2',
      'R',
    );
    expect(call.current?.id).toBe('uuid-1');
    expect(call.lease.lease.startDate.toISOString()).toBe('2020-05-13T00:00:00.000Z');
  });

  it('names the missing pieces', () => {
    expect(
      violations(() =>
        parseBlazarCall({ context: {}, lease: { start_date: 'soon' } }, true, 'r', 'R'),
      ).map((v) => v.field),
    ).toEqual([
      'context.project_id',
      'current_lease',
      'lease.start_date',
      'lease.end_date',
      'lease.name',
    ]);
  });
});

describe('text the ledger cannot store', () => {
  it('is refused in a lease, naming the field', () => {
    expect(
      violations(() =>
        leaseFromCreate({ name: 'a\u0000b', endDate: '2026-11-23T00:00:00Z' }, 'x', NOW),
      ),
    ).toContainEqual({
      field: 'name',
      description: 'holds a NUL character or an unpaired surrogate',
    });
    const lone = {
      endDate: '2026-11-23T00:00:00Z',
      reservations: [{ resourceType: 'virtual:floatingip', amount: 1, networkId: 'net\ud800' }],
    };
    expect(violations(() => leaseFromCreate(lone, 'x', NOW)).map((v) => v.field)).toContain(
      'reservations[0].networkId',
    );
  });

  it('is refused anywhere in a Blazar payload', () => {
    const payload = {
      context: { project_id: 'p' },
      lease: {
        name: 'n',
        start_date: '2030-01-01 00:00',
        end_date: '2030-01-02 00:00',
        reservations: [{ resource_type: 'x', allocations: [{ id: '\u0000' }] }],
      },
    };
    expect(violations(() => parseBlazarCall(payload, false, 'r', 'R'))).toEqual([
      {
        field: 'lease.reservations[0].allocations[0].id',
        description: 'holds a NUL character or an unpaired surrogate',
      },
    ]);
  });

  it('keeps paired surrogates (emoji) as they are', () => {
    expect(
      leaseFromCreate({ name: '😀 lease', endDate: '2026-11-23T00:00:00Z' }, 'x', NOW).name,
    ).toBe('😀 lease');
  });
});
