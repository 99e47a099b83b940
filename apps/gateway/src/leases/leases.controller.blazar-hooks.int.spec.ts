import { hoursFromNow } from '../../test/enforcement-system';
import { hooksSystem } from '../../test/blazar-policy-service';

/**
 * Blazar's hooks as Blazar runs them, against a policy service started here (real HTTP, real
 * NATS and Postgres): the hook URLs and context of the seed, and failures told apart from
 * denials with their configured status.
 */
describe('Blazar hooks: given an ExternalService filter, the calls it makes', () => {
  const system = hooksSystem();

  it("posts each hook to <endpoint>/v1/<hook>, with the seed's context fields, auth_url included", async () => {
    expect((await system.create('hooks')).status).toBe(200);
    const call = system.policy.received.at(-1)!;
    expect(call.path).toBe('/v1/check-create');
    expect(call.headers['x-auth-token']).toBe('policy-token');
    expect(call.body.context).toEqual({
      user_id: 'alice',
      project_id: 'hooks',
      auth_url: 'https://keystone.example.com:5000/v3',
      region_name: 'RegionOne',
    });
  });

  it('answers a failing service with its own reason and the configured status, and a policy denial with PERMISSION_DENIED', async () => {
    const failed = await system.create('ext-error');
    expect(failed.status).toBe(503);
    expect(failed.body.error).toMatchObject({
      status: 'UNAVAILABLE',
      message: 'External service answered check-create with HTTP 500.',
    });
    expect(failed.body.error.details[0]).toMatchObject({
      reason: 'ENFORCEMENT_FILTER_FAILED',
      metadata: { filter: 'ExternalService', hook: 'check_create' },
    });
    const denied = await system.create('ext-deny');
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({
      status: 'PERMISSION_DENIED',
      message: 'Over budget.',
    });
    expect(denied.body.error.details[0]).toMatchObject({
      reason: 'ENFORCEMENT_DENIED',
      metadata: { filter: 'ExternalService' },
    });
  });

  describe('through the Blazar-compatible endpoint', () => {
    const naive = (iso: string) => iso.slice(0, 16).replace('T', ' ');
    const start = naive(hoursFromNow(2));
    const end = naive(hoursFromNow(4));
    const blazarLease = (name: string, endDate = end) => ({
      id: 'b7a1c0de-0000-4000-8000-000000000001',
      name,
      start_date: start,
      end_date: endDate,
      reservations: [{ resource_type: 'physical:host', min: 1, max: 1 }],
    });
    const context = {
      user_id: 'u-1',
      project_id: 'blazar-hooks',
      auth_url: 'https://blazar-keystone/v3',
      region_name: 'RegionTwo',
    };

    it("passes Blazar's own auth_url on to the policy service", async () => {
      expect(
        (await system.blazar('check-create', { context, lease: blazarLease('via-blazar') })).status,
      ).toBe(204);
      expect(system.policy.received.at(-1)!.body.context).toEqual({
        user_id: 'u-1',
        project_id: 'blazar-hooks',
        auth_url: 'https://blazar-keystone/v3',
        region_name: 'RegionTwo',
      });
    });

    it('answers a check-update that only renames without asking anyone, and asks for a real change', async () => {
      const calls = system.policy.received.length;
      const renamed = await system.blazar('check-update', {
        context,
        current_lease: blazarLease('via-blazar'),
        lease: blazarLease('via-blazar-2'),
      });
      expect(renamed.status).toBe(204);
      expect(system.policy.received.length).toBe(calls);
      const longer = await system.blazar('check-update', {
        context,
        current_lease: blazarLease('via-blazar-2'),
        lease: blazarLease('via-blazar-2', naive(hoursFromNow(5))),
      });
      expect(longer.status).toBe(204);
      expect(system.policy.received.at(-1)!.path).toBe('/v1/check-update');
    });
  });
});
