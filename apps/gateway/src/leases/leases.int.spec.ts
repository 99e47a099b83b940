import {
  BUILT_IN_FILTERS_CHAIN,
  EnforcementSystem,
  OTHER_TEAM_TOKEN,
  hoursFromNow,
  host,
  lease,
  leases,
  sample,
  startEnforcementSystem,
} from '../../test/enforcement-system';

/** Creating and listing leases through the gateway, decided by the built-in filters. */
let system: EnforcementSystem;

beforeAll(async () => {
  system = await startEnforcementSystem(BUILT_IN_FILTERS_CHAIN);
}, 60_000);

afterAll(async () => {
  await system?.close();
});

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
    ['an unknown field', { ...lease(), colour: 'red' }, 'property colour should not exist'],
    [
      'an unknown reservation field',
      { ...lease(), reservations: [{ ...host(1), bogus: 1 }] },
      'reservations.0.property bogus should not exist',
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
    ['no end', { startDate: hoursFromNow(1) }, 'endDate must be a string'],
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

describe('MaxActiveLeases under concurrency', () => {
  it('admits exactly 5 of 20 concurrent creates in one project, refuses the other 15, and frees a slot when one ends', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        system.call(
          'POST',
          `${leases('busy')}?leaseId=race-${i}`,
          lease(1, { reservations: [host(1)] }),
        ),
      ),
    );
    const admitted = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 403);
    expect(admitted).toHaveLength(5);
    expect(refused).toHaveLength(15);
    for (const r of refused) {
      expect(r.body.error.message).toBe(
        'Project busy already has 5 pending or active leases; the maximum is 5.',
      );
      expect(r.body.error.details[0].metadata.filter).toBe('MaxActiveLeases');
    }
    const live = await system.call('GET', `${leases('busy')}?status=PENDING,ACTIVE&pageSize=100`);
    expect(live.body.leases).toHaveLength(5);
    const errors = await system.call(
      'GET',
      `${leases('busy')}?filter=${encodeURIComponent('status = ERROR')}&pageSize=100`,
    );
    expect(errors.body.leases).toHaveLength(15);

    expect((await system.call('POST', `${leases('busy')}?leaseId=one-more`, lease())).status).toBe(
      403,
    );
    const ended = await system.call('POST', `${leases('busy')}/${admitted[0].body.id}:end`);
    expect(ended.body.status).toBe('TERMINATED');
    expect(
      (await system.call('POST', `${leases('busy')}?leaseId=now-it-fits`, lease())).status,
    ).toBe(200);
  });

  it('keeps per-project overrides', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        system.call('POST', `${leases('roomy')}?leaseId=r-${i}`, lease()),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
  });
});

describe('listing', () => {
  it('pages through a project by id, filtered by status', async () => {
    for (const id of ['a-1', 'a-2', 'a-3'])
      await system.call('POST', `${leases('pages')}?leaseId=${id}`, lease());
    await system.call('POST', `${leases('pages')}?leaseId=a-4`, lease(99));
    const first = await system.call('GET', `${leases('pages')}?status=PENDING&pageSize=2`);
    expect(first.body.leases.map((l: { id: string }) => l.id)).toEqual(['a-1', 'a-2']);
    const second = await system.call(
      'GET',
      `${leases('pages')}?status=PENDING&pageSize=2&pageToken=${first.body.nextPageToken}`,
    );
    expect(second.body.leases.map((l: { id: string }) => l.id)).toEqual(['a-3']);
    expect(second.body.nextPageToken).toBeUndefined();
    expect(
      (await system.call('GET', `${leases('pages')}?status=ERROR`)).body.leases.map(
        (l: { id: string }) => l.id,
      ),
    ).toEqual(['a-4']);
    expect(
      (await system.call('GET', `${leases('pages')}?pageToken=${first.body.nextPageToken}`)).status,
    ).toBe(400);
    // Tamper-evident: the service's own token without the gateway's signature, or with one
    // character changed, is refused before it reaches the service.
    const token: string = first.body.nextPageToken;
    const inner = token.slice(0, token.lastIndexOf('.'));
    const flipped = `${inner.slice(0, -1)}${inner.endsWith('A') ? 'B' : 'A'}${token.slice(token.lastIndexOf('.'))}`;
    for (const forged of [inner, flipped]) {
      const refused = await system.call(
        'GET',
        `${leases('pages')}?status=PENDING&pageSize=2&pageToken=${forged}`,
      );
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toBe('pageToken is not a token this API issued.');
    }
    expect((await system.call('GET', `${leases('pages')}?status=SLEEPING`)).status).toBe(400);
    expect((await system.call('GET', `${leases('pages')}?filter=name%3Dx`)).status).toBe(400);
  });

  it('counts every decision in the metrics by hook, filter and result', async () => {
    const metrics = await system.metrics();
    expect(
      sample(metrics, 'enforcement_decisions_total', {
        hook: 'check_create',
        filter: 'MaxLeaseDuration',
        result: 'deny',
      }),
    ).toBeGreaterThan(0);
    expect(
      sample(metrics, 'enforcement_decisions_total', {
        hook: 'check_create',
        filter: 'MaxActiveLeases',
        result: 'deny',
      }),
    ).toBeGreaterThanOrEqual(15);
    expect(
      sample(metrics, 'enforcement_chain_decisions_total', { hook: 'on_end', result: 'notified' }),
    ).toBeGreaterThan(0);
  });
});
