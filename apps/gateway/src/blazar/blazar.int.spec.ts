import type { JsonBody } from '@rollout/testing';
import {
  BLAZAR_TOKEN,
  EnforcementSystem,
  Reply,
  hoursFromNow,
  startEnforcementSystem,
} from '../../test/enforcement-system';

/**
 * Blazar's external enforcement protocol at /v1/blazar/…, as a Blazar deployment would call it:
 * its exact snake_case payloads (naive or zoned dates), X-Auth-Token, 204 or 403 {"message"}.
 * Admitted leases are tracked in the ledger, so MaxActiveLeases (2 here) counts them beside the
 * API's and on-end releases them.
 */
const CHAIN = `
enabled_filters: [MaxLeaseDuration, MaxActiveLeases]
filters:
  MaxLeaseDuration: { max_lease_duration: 86400 }
  MaxActiveLeases: { max_active_leases: 2 }
`;

let system: EnforcementSystem;
/** `token` null: no X-Auth-Token at all. */
const blazar = (hook: string, body: unknown, token: string | null = BLAZAR_TOKEN): Promise<Reply> =>
  system.call('POST', `/v1/blazar/${hook}`, body, token === null ? {} : { 'x-auth-token': token });

/** Blazar's date format (naive, UTC) for a time `hours` from now. */
const naive = (hours: number) =>
  hoursFromNow(hours)
    .replace('T', ' ')
    .replace(/:\d\dZ$/, '');

const context = (project: string) => ({
  user_id: 'c631173e-dec0-4bb7-a0c3-f7711153c06c',
  project_id: project,
  auth_url: 'https://api.example.com:5000/v3',
  region_name: 'RegionOne',
});

/** The spec's physical:host example, with dates of our own. */
const hostLease = (name: string, hours = 2, extra: Record<string, unknown> = {}) => ({
  name,
  start_date: naive(1),
  end_date: naive(1 + hours),
  reservations: [
    {
      resource_type: 'physical:host',
      min: 1,
      max: 2,
      hypervisor_properties: '[]',
      resource_properties: '["==", "$availability_zone", "az1"]',
      allocations: [
        {
          id: '1',
          hypervisor_hostname: '32af5a7a-e7a3-4883-a643-828e3f63bf54',
          extra: { availability_zone: 'az1' },
        },
      ],
    },
  ],
  ...extra,
});

const ledger = async (project: string) =>
  (await system.call('GET', `/v1/projects/${project}/leases?pageSize=100`)).body.leases as Array<
    Record<string, JsonBody>
  >;

beforeAll(async () => {
  system = await startEnforcementSystem(CHAIN);
}, 60_000);

afterAll(async () => {
  await system?.close();
});

describe('authentication', () => {
  it.each([
    ['no token', null],
    ['a wrong token', 'not-the-token'],
    ['the hash instead of the token', '0'.repeat(64)],
  ])('refuses %s with 401', async (_, token) => {
    const answer = await blazar(
      'check-create',
      { context: context('p-auth'), lease: hostLease('x') },
      token,
    );
    expect(answer.status).toBe(401);
    expect(answer.body.error.status).toBe('UNAUTHENTICATED');
  });

  it('does not take a bearer token instead', async () => {
    const answer = await system.call('POST', '/v1/blazar/check-create', {
      context: context('p-auth'),
      lease: hostLease('x'),
    });
    expect(answer.status).toBe(401);
  });
});

describe('check-create', () => {
  it("answers 204 to the spec's own payload (naive dates, end_time, allocations) and tracks the lease", async () => {
    const lease = { ...hostLease('spec-lease'), end_time: naive(5) } as Record<string, unknown>;
    delete lease.end_date;
    const answer = await blazar('check-create', { context: context('p-spec'), lease });
    expect(answer).toEqual({ status: 204, body: {} });
    const [tracked] = await ledger('p-spec');
    expect(tracked).toMatchObject({
      name: 'spec-lease',
      origin: 'BLAZAR',
      status: 'PENDING',
      creator: 'c631173e-dec0-4bb7-a0c3-f7711153c06c',
      endDate: new Date(`${naive(5).replace(' ', 'T')}:00Z`).toISOString(),
      reservations: [
        expect.objectContaining({
          resourceType: 'physical:host',
          min: 1,
          max: 2,
          hypervisorProperties: '[]',
          allocations: expect.any(Array),
        }),
      ],
    });
  });

  it('accepts dates with an offset', async () => {
    const lease = hostLease('zoned', 2, {
      start_date: '2031-01-01T02:00:00+02:00',
      end_date: '2031-01-01T10:00:00+02:00',
    });
    expect((await blazar('check-create', { context: context('p-zoned'), lease })).status).toBe(204);
    expect((await ledger('p-zoned'))[0]).toMatchObject({
      startDate: '2031-01-01T00:00:00.000Z',
      endDate: '2031-01-01T08:00:00.000Z',
    });
  });

  it('answers 403 with only {"message"} when a filter denies', async () => {
    const answer = await blazar('check-create', {
      context: context('p-long'),
      lease: hostLease('too-long', 48),
    });
    expect(answer).toEqual({
      status: 403,
      body: {
        message:
          'Lease duration of 172800 seconds must be less than or equal to the maximum lease duration of 86400 seconds.',
      },
    });
    expect((await ledger('p-long'))[0]).toMatchObject({ status: 'ERROR', origin: 'BLAZAR' });
  });

  it('counts Blazar leases with the API ones against MaxActiveLeases, and on-end releases them', async () => {
    const p = 'p-count';
    expect(
      (await blazar('check-create', { context: context(p), lease: hostLease('b-1') })).status,
    ).toBe(204);
    expect(
      (await blazar('check-create', { context: context(p), lease: hostLease('b-2') })).status,
    ).toBe(204);
    const third = await blazar('check-create', { context: context(p), lease: hostLease('b-3') });
    expect(third).toEqual({
      status: 403,
      body: { message: `Project ${p} already has 2 pending or active leases; the maximum is 2.` },
    });
    const viaApi = await system.call('POST', `/v1/projects/${p}/leases?leaseId=api-1`, {
      endDate: hoursFromNow(2),
    });
    expect(viaApi.status).toBe(403);

    expect((await blazar('on-end', { context: context(p), lease: hostLease('b-1') })).status).toBe(
      204,
    );
    const released = (await ledger(p)).find((l) => l.name === 'b-1' && l.status !== 'ERROR');
    expect(released).toMatchObject({ status: 'TERMINATED', statusReason: 'Ended by Blazar.' });
    expect(
      (await blazar('check-create', { context: context(p), lease: hostLease('b-3') })).status,
    ).toBe(204);
  });

  it('treats a repeated check-create of a lease it holds as a re-check, not a second lease', async () => {
    const p = 'p-retry';
    expect(
      (await blazar('check-create', { context: context(p), lease: hostLease('same') })).status,
    ).toBe(204);
    expect(
      (await blazar('check-create', { context: context(p), lease: hostLease('same') })).status,
    ).toBe(204);
    expect(
      (await blazar('check-create', { context: context(p), lease: hostLease('other') })).status,
    ).toBe(204);
    expect((await ledger(p)).filter((l) => l.status === 'PENDING')).toHaveLength(2);
  });

  it('names a bad field with 400', async () => {
    const answer = await blazar('check-create', {
      context: { user_id: 'u' },
      lease: { name: 'x', start_date: 'tomorrow', end_date: naive(2) },
    });
    expect(answer.status).toBe(400);
    expect(
      answer.body.error.details[0].fieldViolations.map((v: { field: string }) => v.field),
    ).toEqual(['context.project_id', 'lease.start_date']);
  });
});

describe('check-update', () => {
  it('allows an update the filters allow and the ledger follows; a denied one changes nothing', async () => {
    const p = 'p-update';
    const current = hostLease('grow', 2);
    expect((await blazar('check-create', { context: context(p), lease: current })).status).toBe(
      204,
    );
    const [before] = await ledger(p);

    const tooLong = { ...current, id: 'blazar-uuid-1', end_date: naive(60) };
    const refused = await blazar('check-update', {
      context: context(p),
      current_lease: { ...current, id: 'blazar-uuid-1' },
      lease: tooLong,
    });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(
      /^Lease duration of \d+ seconds must be less than or equal to the maximum lease duration of 86400 seconds\.$/,
    );
    expect(await ledger(p)).toEqual([before]);

    const longer = { ...current, id: 'blazar-uuid-1', end_date: naive(10) };
    expect(
      (
        await blazar('check-update', {
          context: context(p),
          current_lease: { ...current, id: 'blazar-uuid-1' },
          lease: longer,
        })
      ).status,
    ).toBe(204);
    const [after] = await ledger(p);
    expect(after.id).toBe(before.id);
    expect(after.endDate).toBe(new Date(`${naive(10).replace(' ', 'T')}:00Z`).toISOString());
    const decisions = (await system.call('GET', `/v1/projects/${p}/leases/${after.id}/decisions`))
      .body.decisions;
    expect(
      decisions.map(
        (d: { hook: string; result: string; actor: string }) => `${d.hook}:${d.result}:${d.actor}`,
      ),
    ).toEqual([
      'CHECK_CREATE:ALLOWED:blazar',
      'CHECK_UPDATE:DENIED:blazar',
      'CHECK_UPDATE:ALLOWED:blazar',
    ]);
  });
});

describe('on-end', () => {
  it('sends on_end once per lease, however often Blazar says it ended', async () => {
    const p = 'p-end';
    expect(
      (await blazar('check-create', { context: context(p), lease: hostLease('once') })).status,
    ).toBe(204);
    for (let i = 0; i < 3; i++)
      expect(
        (await blazar('on-end', { context: context(p), lease: hostLease('once') })).status,
      ).toBe(204);
    const [lease] = await ledger(p);
    expect(lease.status).toBe('TERMINATED');
    const hooks = (
      await system.call('GET', `/v1/projects/${p}/leases/${lease.id}/decisions`)
    ).body.decisions.map((d: { hook: string }) => d.hook);
    expect(hooks).toEqual(['CHECK_CREATE', 'ON_END']);
  });

  it('remembers the end of a lease it never saw, so on_end goes out once for it too', async () => {
    const p = 'p-unknown';
    expect(
      (await blazar('on-end', { context: context(p), lease: hostLease('stranger') })).status,
    ).toBe(204);
    expect(
      (await blazar('on-end', { context: context(p), lease: hostLease('stranger') })).status,
    ).toBe(204);
    const [lease] = await ledger(p);
    expect(lease).toMatchObject({ status: 'TERMINATED', origin: 'BLAZAR' });
    expect(
      (await system.call('GET', `/v1/projects/${p}/leases/${lease.id}/decisions`)).body.decisions,
    ).toHaveLength(1);
  });
});
