import {
  blazarContext as context,
  blazarSystem,
  hostLease,
  naive,
} from '../../test/blazar-protocol';

/**
 * Blazar's check-update and on-end at /v1/blazar/…: the ledger's copy of a Blazar lease follows
 * an allowed update, and on_end goes out once per lease.
 */
const system = blazarSystem();

describe('check-update', () => {
  it('allows an update the filters allow and the ledger follows; a denied one changes nothing', async () => {
    const p = 'p-update';
    const current = hostLease('grow', 2);
    expect(
      (await system.blazar('check-create', { context: context(p), lease: current })).status,
    ).toBe(204);
    const [before] = await system.ledger(p);

    const tooLong = { ...current, id: 'blazar-uuid-1', end_date: naive(60) };
    const refused = await system.blazar('check-update', {
      context: context(p),
      current_lease: { ...current, id: 'blazar-uuid-1' },
      lease: tooLong,
    });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(
      /^Lease duration of \d+ seconds must be less than or equal to the maximum lease duration of 86400 seconds\.$/,
    );
    expect(await system.ledger(p)).toEqual([before]);

    const longer = { ...current, id: 'blazar-uuid-1', end_date: naive(10) };
    expect(
      (
        await system.blazar('check-update', {
          context: context(p),
          current_lease: { ...current, id: 'blazar-uuid-1' },
          lease: longer,
        })
      ).status,
    ).toBe(204);
    const [after] = await system.ledger(p);
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
      (await system.blazar('check-create', { context: context(p), lease: hostLease('once') }))
        .status,
    ).toBe(204);
    for (let i = 0; i < 3; i++)
      expect(
        (await system.blazar('on-end', { context: context(p), lease: hostLease('once') })).status,
      ).toBe(204);
    const [lease] = await system.ledger(p);
    expect(lease.status).toBe('TERMINATED');
    const hooks = (
      await system.call('GET', `/v1/projects/${p}/leases/${lease.id}/decisions`)
    ).body.decisions.map((d: { hook: string }) => d.hook);
    expect(hooks).toEqual(['CHECK_CREATE', 'ON_END']);
  });

  it('remembers the end of a lease it never saw, so on_end goes out once for it too', async () => {
    const p = 'p-unknown';
    expect(
      (await system.blazar('on-end', { context: context(p), lease: hostLease('stranger') })).status,
    ).toBe(204);
    expect(
      (await system.blazar('on-end', { context: context(p), lease: hostLease('stranger') })).status,
    ).toBe(204);
    const [lease] = await system.ledger(p);
    expect(lease).toMatchObject({ status: 'TERMINATED', origin: 'BLAZAR' });
    expect(
      (await system.call('GET', `/v1/projects/${p}/leases/${lease.id}/decisions`)).body.decisions,
    ).toHaveLength(1);
  });
});
