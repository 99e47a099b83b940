import { hoursFromNow } from '../../test/enforcement-system';
import {
  blazarContext as context,
  blazarSystem,
  hostLease,
  naive,
} from '../../test/blazar-protocol';

/**
 * Blazar's external enforcement protocol at /v1/blazar/…, as a Blazar deployment would call it:
 * its exact snake_case payloads (naive or zoned dates), X-Auth-Token, 204 or 403 {"message"}.
 * Admitted leases are tracked in the ledger, so MaxActiveLeases counts them beside the API's and
 * on-end releases them.
 */
const system = blazarSystem();

describe('authentication', () => {
  it.each([
    ['no token', null],
    ['a wrong token', 'not-the-token'],
    ['the hash instead of the token', '0'.repeat(64)],
  ])('refuses %s with 401', async (_, token) => {
    const answer = await system.blazar(
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
    const answer = await system.blazar('check-create', { context: context('p-spec'), lease });
    expect(answer).toEqual({ status: 204, body: {} });
    const [tracked] = await system.ledger('p-spec');
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
    expect(
      (await system.blazar('check-create', { context: context('p-zoned'), lease })).status,
    ).toBe(204);
    expect((await system.ledger('p-zoned'))[0]).toMatchObject({
      startDate: '2031-01-01T00:00:00.000Z',
      endDate: '2031-01-01T08:00:00.000Z',
    });
  });

  it('answers 403 with only {"message"} when a filter denies', async () => {
    const answer = await system.blazar('check-create', {
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
    expect((await system.ledger('p-long'))[0]).toMatchObject({ status: 'ERROR', origin: 'BLAZAR' });
  });

  it('counts Blazar leases with the API ones against MaxActiveLeases, and on-end releases them', async () => {
    const p = 'p-count';
    expect(
      (await system.blazar('check-create', { context: context(p), lease: hostLease('b-1') }))
        .status,
    ).toBe(204);
    expect(
      (await system.blazar('check-create', { context: context(p), lease: hostLease('b-2') }))
        .status,
    ).toBe(204);
    const third = await system.blazar('check-create', {
      context: context(p),
      lease: hostLease('b-3'),
    });
    expect(third).toEqual({
      status: 403,
      body: { message: `Project ${p} already has 2 pending or active leases; the maximum is 2.` },
    });
    const viaApi = await system.call('POST', `/v1/projects/${p}/leases?leaseId=api-1`, {
      endDate: hoursFromNow(2),
    });
    expect(viaApi.status).toBe(403);

    expect(
      (await system.blazar('on-end', { context: context(p), lease: hostLease('b-1') })).status,
    ).toBe(204);
    const released = (await system.ledger(p)).find((l) => l.name === 'b-1' && l.status !== 'ERROR');
    expect(released).toMatchObject({ status: 'TERMINATED', statusReason: 'Ended by Blazar.' });
    expect(
      (await system.blazar('check-create', { context: context(p), lease: hostLease('b-3') }))
        .status,
    ).toBe(204);
  });

  it('treats a repeated check-create of a lease it holds as a re-check, not a second lease', async () => {
    const p = 'p-retry';
    expect(
      (await system.blazar('check-create', { context: context(p), lease: hostLease('same') }))
        .status,
    ).toBe(204);
    expect(
      (await system.blazar('check-create', { context: context(p), lease: hostLease('same') }))
        .status,
    ).toBe(204);
    expect(
      (await system.blazar('check-create', { context: context(p), lease: hostLease('other') }))
        .status,
    ).toBe(204);
    expect((await system.ledger(p)).filter((l) => l.status === 'PENDING')).toHaveLength(2);
  });

  it('names a bad field with 400', async () => {
    const answer = await system.blazar('check-create', {
      context: { user_id: 'u' },
      lease: { name: 'x', start_date: 'tomorrow', end_date: naive(2) },
    });
    expect(answer.status).toBe(400);
    expect(
      answer.body.error.details[0].fieldViolations.map((v: { field: string }) => v.field),
    ).toEqual(['context.project_id', 'lease.start_date']);
  });
});
