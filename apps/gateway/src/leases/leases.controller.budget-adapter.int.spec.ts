import {
  ServiceProcess,
  eventually,
  freePort,
  removeTestResources,
  startServiceProcess,
  uniqueName,
} from '@rollout/testing/kit';
import { enforcementSystem } from '../../test/enforcement-system';

/**
 * The reference budget adapter (apps/budget-adapter, from its main.ts, its own Postgres schema)
 * behind an adapter filter with the check, quota and report templates. Budgets in host-hours:
 * acme 30, bravo 15, charlie 20, delta 25; every lease here is 1 host for exactly 10 hours.
 */
describe('adapter filters: the budget adapter', () => {
  let budget: ServiceProcess;
  const name = uniqueName('budget-');
  const schema = uniqueName('it_budget_');
  let n = 0;
  const base = new Date(Date.now() + 3_600_000);
  base.setUTCSeconds(0, 0);
  const at = (hours: number) => new Date(base.getTime() + hours * 3_600_000);
  const LEASE = {
    name: 'ten',
    startDate: at(0).toISOString(),
    endDate: at(10).toISOString(),
    reservations: [{ resourceType: 'physical:host', min: 1, max: 1 }],
  };
  const create = (project: string) =>
    system.call('POST', `/v1/projects/${project}/leases?leaseId=b-${++n}`, LEASE);
  const chain = (adapter: string) => `
enabled_filters: [MaxLeaseDuration, budget]
filters:
  MaxLeaseDuration: { max_lease_duration: 604800 }
  budget:
    adapter: ${adapter}
    params: { budgets: { acme: { "physical:host": 30 }, bravo: { "physical:host": 15 }, charlie: { "physical:host": 20 }, delta: { "physical:host": 25 } } }
    templates: [check, quota, report]
    failure_policy: closed
    timeout_ms: 2000
`;
  // The service first (its namespace), then the adapter on it, then the chain.
  const system = enforcementSystem(chain('nobody-yet'), {
    ENFORCEMENT_CONFIG_WATCH_INTERVAL_MS: '100',
  });

  beforeAll(async () => {
    const port = await freePort();
    budget = startServiceProcess('budget-adapter', {
      NATS_NAMESPACE: system.namespace,
      DATABASE_SCHEMA: schema,
      PORT: String(port),
      ADAPTER_NAME: name,
      // Check results are not reused here, so each check sees the budget as it is.
      BUDGET_CHECK_VALID_DURATION_MS: '0',
    });
    await eventually(
      async () =>
        (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200 ? true : undefined,
      { timeoutMs: 30_000, intervalMs: 200, what: 'budget-adapter ready' },
    );
    system.reload(chain(name));
    // A project without a budget passes once the handler has its session.
    await eventually(async () => ((await create('unlimited')).status === 200 ? true : undefined), {
      timeoutMs: 20_000,
      intervalMs: 200,
      what: 'the budget handler in force',
    });
  }, 90_000);

  afterAll(async () => {
    await budget?.stop();
    await removeTestResources({ schema });
  });

  it("admits leases until the budget is spent, then denies with the adapter's message", async () => {
    for (let i = 0; i < 3; i++) expect((await create('acme')).status).toBe(200);
    const refused = await create('acme');
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe(
      'Project acme has used its budget of 30 physical:host hours.',
    );
    expect(refused.body.error.details[0].metadata.filter).toBe('budget');
  });

  it('denies a lease larger than what is left, saying what is left', async () => {
    expect((await create('bravo')).status).toBe(200);
    const refused = await create('bravo');
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe(
      `Quota from adapter ${name} refused: 10 physical:host resource-hours asked, 0 granted (Project bravo has 5 of its 15 physical:host hours left.).`,
    );
  });

  it('ending a lease that has not started refunds it in full', async () => {
    const first = `b-${n - 5}`; // the first acme lease
    expect((await system.call('GET', `/v1/projects/acme/leases/${first}`)).body.status).toBe(
      'PENDING',
    );
    expect((await system.call('POST', `/v1/projects/acme/leases/${first}:end`)).status).toBe(200);
    expect((await create('acme')).status).toBe(200);
    expect((await create('acme')).status).toBe(403);
  });

  it('a retried quota request (Blazar asking twice about one lease) is charged once', async () => {
    const naive = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');
    const blazarLease = {
      name: 'retried',
      start_date: naive(at(0)),
      end_date: naive(at(10)),
      reservations: [{ resource_type: 'physical:host', min: 1, max: 1 }],
    };
    const body = {
      context: { user_id: 'u-1', project_id: 'charlie', region_name: 'RegionOne' },
      lease: blazarLease,
    };
    for (let i = 0; i < 2; i++)
      expect((await system.blazar('check-create', body)).status).toBe(204);
    // 20 host-hours: charged once, 10 are left for exactly one more lease.
    expect((await create('charlie')).status).toBe(200);
    expect((await create('charlie')).status).toBe(403);
  });

  it('an update that shrinks a lease returns what it no longer holds', async () => {
    expect((await create('delta')).status).toBe(200);
    const shrunk = await system.call('PATCH', `/v1/projects/delta/leases/b-${n}`, {
      endDate: at(5).toISOString(),
    });
    expect(shrunk.status).toBe(200);
    // 5 + 10 + 10 = 25: both fit only because the shrink gave 5 host-hours back.
    expect((await create('delta')).status).toBe(200);
    expect((await create('delta')).status).toBe(200);
    expect((await create('delta')).status).toBe(403);
  });
});
