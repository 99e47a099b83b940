import { eventually } from '@rollout/testing/kit';
import {
  BUILT_IN_FILTERS_CHAIN,
  enforcementSystem,
  hoursFromNow,
  host,
  lease,
  leases,
  sample,
} from '../../test/enforcement-system';

/** Updating, ending and exempting leases through the gateway, decided by the built-in filters. */
const system = enforcementSystem(BUILT_IN_FILTERS_CHAIN);

describe('updating leases', () => {
  it('applies an update the filters allow, and records both decisions', async () => {
    await system.call('POST', `${leases('upd')}?leaseId=grow`, lease(2));
    const endDate = hoursFromNow(10);
    const updated = await system.call('PATCH', `${leases('upd')}/grow`, {
      endDate,
      reservations: [host(3)],
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      endDate: new Date(endDate).toISOString(),
      reservations: [host(3)],
      status: 'PENDING',
    });
    const decisions = (await system.call('GET', `${leases('upd')}/grow/decisions`)).body.decisions;
    expect(decisions.map((d: { hook: string; result: string }) => `${d.hook}:${d.result}`)).toEqual(
      ['CHECK_CREATE:ALLOWED', 'CHECK_UPDATE:ALLOWED'],
    );
  });

  it('refuses an update a filter denies with 403, and leaves the lease exactly as it was', async () => {
    const created = await system.call('POST', `${leases('upd')}?leaseId=keep`, lease(2));
    const refused = await system.call('PATCH', `${leases('upd')}/keep`, {
      endDate: hoursFromNow(100),
      name: 'renamed',
      reservations: [host(1)],
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(
      /^Lease duration of \d+ seconds must be less than or equal to the maximum lease duration of 86400 seconds\.$/,
    );
    expect(refused.body.error.details[0].metadata).toMatchObject({
      filter: 'MaxLeaseDuration',
      hook: 'check_update',
    });
    expect((await system.call('GET', `${leases('upd')}/keep`)).body).toEqual(created.body);
    const decisions = (await system.call('GET', `${leases('upd')}/keep/decisions`)).body.decisions;
    expect(decisions[1]).toMatchObject({
      hook: 'CHECK_UPDATE',
      result: 'DENIED',
      filter: 'MaxLeaseDuration',
    });
  });

  it('refuses to update an ended lease, and to move the start of a started one', async () => {
    await system.call('POST', `${leases('upd')}?leaseId=done`, lease());
    await system.call('POST', `${leases('upd')}/done:end`);
    const late = await system.call('PATCH', `${leases('upd')}/done`, { endDate: hoursFromNow(5) });
    expect(late.status).toBe(400);
    expect(late.body.error.status).toBe('FAILED_PRECONDITION');
    const started = await system.call('POST', `${leases('upd')}?leaseId=started`, {
      endDate: hoursFromNow(3),
    });
    const moved = await system.call('PATCH', `${leases('upd')}/started`, {
      startDate: hoursFromNow(1),
    });
    expect(moved.status).toBe(400);
    expect(moved.body.error.message).toContain(
      'startDate cannot change once the lease has started',
    );
    expect((await system.call('GET', `${leases('upd')}/started`)).body).toEqual(started.body);
  });
});

describe('ending leases', () => {
  it('ends a lease (TERMINATED, on_end once) and ending it again changes nothing', async () => {
    await system.call('POST', `${leases('end')}?leaseId=stop`, lease());
    const ended = await system.call('POST', `${leases('end')}/stop:end`);
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({
      status: 'TERMINATED',
      statusReason: 'Ended by alice.',
      endTime: expect.any(String),
    });
    const again = await system.call('POST', `${leases('end')}/stop:end`);
    expect(again.body).toEqual(ended.body);
    const hooks = (await system.call('GET', `${leases('end')}/stop/decisions`)).body.decisions.map(
      (d: { hook: string }) => d.hook,
    );
    expect(hooks).toEqual(['CHECK_CREATE', 'ON_END']);
  });

  it('ends a lease when its end date passes (the service notices), with on_end from the system', async () => {
    const soon = new Date(Date.now() + 1500).toISOString();
    const created = await system.call('POST', `${leases('end')}?leaseId=brief`, { endDate: soon });
    expect(created.body.status).toBe('ACTIVE');
    const ended = await eventually(
      async () => {
        const got = await system.call('GET', `${leases('end')}/brief`);
        return got.body.status === 'TERMINATED' ? got.body : undefined;
      },
      { timeoutMs: 15_000, what: 'the lease to end' },
    );
    expect(ended).toMatchObject({
      statusReason: 'The end date passed.',
      endTime: new Date(soon).toISOString(),
    });
    const decisions = (await system.call('GET', `${leases('end')}/brief/decisions`)).body.decisions;
    expect(decisions[1]).toMatchObject({ hook: 'ON_END', result: 'NOTIFIED', actor: 'system' });
  });

  it('refuses to end a refused lease', async () => {
    await system.call('POST', `${leases('end')}?leaseId=refused`, lease(72));
    const ended = await system.call('POST', `${leases('end')}/refused:end`);
    expect(ended.status).toBe(400);
    expect(ended.body.error.status).toBe('FAILED_PRECONDITION');
  });

  it('deletes a lease (a live one is ended first) and then knows it no more', async () => {
    await system.call('POST', `${leases('end')}?leaseId=gone`, lease());
    expect(await system.call('DELETE', `${leases('end')}/gone`)).toEqual({ status: 200, body: {} });
    expect((await system.call('GET', `${leases('end')}/gone`)).status).toBe(404);
    expect((await system.call('DELETE', `${leases('end')}/gone`)).status).toBe(404);
  });
});

describe('dryrun and exemptions', () => {
  it('lets a dryrun denial pass, recording and counting it as would-deny', async () => {
    const before = sample(await system.metrics(), 'enforcement_decisions_total', {
      hook: 'check_create',
      filter: 'MaxReservationSize',
      result: 'would_deny',
    });
    const created = await system.call(
      'POST',
      `${leases('dry')}?leaseId=big`,
      lease(2, { reservations: [host(6)] }),
    );
    expect(created.status).toBe(200);
    expect(created.body.status).toBe('PENDING');
    const [decision] = (await system.call('GET', `${leases('dry')}/big/decisions`)).body.decisions;
    expect(decision).toMatchObject({ result: 'ALLOWED', exempted: false });
    expect(decision.steps).toEqual([
      { filter: 'MaxLeaseDuration', mode: 'ENFORCE', result: 'ALLOW' },
      {
        filter: 'MaxReservationSize',
        mode: 'DRYRUN',
        result: 'WOULD_DENY',
        message: 'Reservation of 6 physical:host exceeds the maximum reservation size of 4.',
      },
      { filter: 'MaxActiveLeases', mode: 'ENFORCE', result: 'ALLOW' },
    ]);
    const after = sample(await system.metrics(), 'enforcement_decisions_total', {
      hook: 'check_create',
      filter: 'MaxReservationSize',
      result: 'would_deny',
    });
    expect(after).toBe(before + 1);
  });

  it('lets an exempted project skip every filter', async () => {
    const created = await system.call(
      'POST',
      `${leases('exempt')}?leaseId=anything`,
      lease(24 * 30),
    );
    expect(created.status).toBe(200);
    const [decision] = (await system.call('GET', `${leases('exempt')}/anything/decisions`)).body
      .decisions;
    expect(decision).toMatchObject({ result: 'ALLOWED', exempted: true, steps: [] });
  });
});
