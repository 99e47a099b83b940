import {
  BUILT_IN_FILTERS_CHAIN,
  enforcementSystem,
  OTHER_TEAM_TOKEN,
  hoursFromNow,
  host,
  lease,
  leases,
} from '../../test/enforcement-system';

/** Creating leases through the gateway, decided by the built-in filters. */
const system = enforcementSystem(BUILT_IN_FILTERS_CHAIN);

describe('creating leases', () => {
  it('admits a lease every filter allows: PENDING, as written, readable again', async () => {
    const body = lease();
    const created = await system.call('POST', `${leases('acme')}?leaseId=train-1`, body);
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      id: 'train-1',
      project: 'acme',
      name: 'training run',
      status: 'PENDING',
      origin: 'API',
      creator: 'alice',
      reservations: body.reservations,
      startDate: new Date(body.startDate).toISOString(),
      endDate: new Date(body.endDate).toISOString(),
    });
    expect((await system.call('GET', `${leases('acme')}/train-1`)).body).toEqual(created.body);
  });

  it('is ACTIVE at once when it starts now, and the service picks an id when none is given', async () => {
    const created = await system.call('POST', leases('acme'), { endDate: hoursFromNow(1) });
    expect(created.status).toBe(200);
    expect(created.body.status).toBe('ACTIVE');
    expect(created.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.body.name).toBe(created.body.id);
  });

  it('refuses a lease a filter denies with 403, the filter message and its name, and keeps it as an ERROR lease', async () => {
    const refused = await system.call('POST', `${leases('acme')}?leaseId=too-long`, lease(48));
    expect(refused.status).toBe(403);
    const message =
      'Lease duration of 172800 seconds must be less than or equal to the maximum lease duration of 86400 seconds.';
    expect(refused.body.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED', message });
    expect(refused.body.error.details).toContainEqual(
      expect.objectContaining({
        reason: 'ENFORCEMENT_DENIED',
        metadata: expect.objectContaining({
          filter: 'MaxLeaseDuration',
          hook: 'check_create',
          lease: 'too-long',
        }),
      }),
    );
    const stored = await system.call('GET', `${leases('acme')}/too-long`);
    expect(stored.body).toMatchObject({ status: 'ERROR', statusReason: message });
    const decisions = await system.call('GET', `${leases('acme')}/too-long/decisions`);
    expect(decisions.body.decisions).toEqual([
      expect.objectContaining({
        hook: 'CHECK_CREATE',
        result: 'DENIED',
        filter: 'MaxLeaseDuration',
        message,
        actor: 'alice',
        userId: 'alice',
        steps: [{ filter: 'MaxLeaseDuration', mode: 'ENFORCE', result: 'DENY', message }],
      }),
    ]);
    expect(decisions.body.decisions[0].requestId).toEqual(expect.any(String));
  });

  it('refuses a taken id with 409 before asking the filters', async () => {
    expect((await system.call('POST', `${leases('acme')}?leaseId=dup`, lease())).status).toBe(200);
    const again = await system.call('POST', `${leases('acme')}?leaseId=dup`, lease());
    expect(again.status).toBe(409);
    expect(again.body.error.status).toBe('ALREADY_EXISTS');
    expect(
      (await system.call('GET', `${leases('acme')}/dup/decisions`)).body.decisions,
    ).toHaveLength(1);
  });

  it.each([
    ['an unknown field', { ...lease(), colour: 'red' }, 'colour is an unknown field'],
    [
      'an unknown reservation field',
      { ...lease(), reservations: [{ ...host(1), bogus: 1 }] },
      'reservations[0].bogus is an unknown field',
    ],
    [
      'a date that is not one',
      { ...lease(), endDate: 'next tuesday' },
      'endDate must be an RFC 3339 timestamp',
    ],
    [
      'an end before the start',
      { ...lease(), endDate: hoursFromNow(0.5) },
      'endDate must be after startDate',
    ],
    [
      'hosts without max',
      { ...lease(), reservations: [{ resourceType: 'physical:host', min: 1 }] },
      'reservations[0].max is required for physical:host',
    ],
    ['no end', { startDate: hoursFromNow(1) }, 'endDate is required'],
  ])('refuses %s with 400 naming the field', async (_, body, message) => {
    const refused = await system.call('POST', `${leases('acme')}?leaseId=bad-input`, body);
    expect(refused.status).toBe(400);
    expect(refused.body.error.status).toBe('INVALID_ARGUMENT');
    expect(refused.body.error.message).toContain(message);
  });

  it('refuses a leaseId that is not an AIP-122 id', async () => {
    const refused = await system.call('POST', `${leases('acme')}?leaseId=Not_An_Id`, lease());
    expect(refused.status).toBe(400);
    expect(refused.body.error.details[0].fieldViolations[0].field).toBe('leaseId');
  });

  it("hides another team's project: its leases cannot be listed, read, created, changed, ended or deleted (404), and stay as they were", async () => {
    const created = await system.call('POST', `${leases('acme')}?leaseId=not-yours`, lease());
    expect(created.status).toBe(200);
    const path = `${leases('acme')}/not-yours`;
    const before = {
      lease: (await system.call('GET', path)).body,
      decisions: (await system.call('GET', `${path}/decisions`)).body,
    };
    const other = { authorization: `Bearer ${OTHER_TEAM_TOKEN}` };
    const attempts: [string, string, unknown?][] = [
      ['GET', leases('acme')],
      ['GET', path],
      ['GET', `${path}/decisions`],
      ['POST', `${leases('acme')}?leaseId=planted`, lease()],
      ['PATCH', path, { endDate: hoursFromNow(20) }],
      ['POST', `${path}:end`],
      ['DELETE', path],
    ];
    for (const [method, url, body] of attempts) {
      const refused = await system.call(method, url, body, other);
      expect({ method, url, status: refused.status, error: refused.body.error?.status }).toEqual({
        method,
        url,
        status: 404,
        error: 'NOT_FOUND',
      });
    }
    // 404 like a project that does not exist: nothing tells the other team that acme is there.
    const comparable = (
      error: { message: string; details: { '@type': string }[] },
      project: string,
    ) => ({
      ...error,
      message: error.message.replace(project, '<project>'),
      details: error.details.filter((detail) => !detail['@type'].endsWith('RequestInfo')),
    });
    const unknown = (await system.call('GET', leases('nonexistent'), undefined, other)).body.error;
    expect(
      comparable((await system.call('GET', leases('acme'), undefined, other)).body.error, 'acme'),
    ).toEqual(comparable(unknown, 'nonexistent'));
    // Its own project still works for the other team.
    expect((await system.call('GET', leases('other'), undefined, other)).status).toBe(200);
    // Nothing changed.
    expect((await system.call('GET', path)).body).toEqual(before.lease);
    expect((await system.call('GET', `${path}/decisions`)).body).toEqual(before.decisions);
    expect((await system.call('GET', `${leases('acme')}/planted`)).status).toBe(404);
  });
});
