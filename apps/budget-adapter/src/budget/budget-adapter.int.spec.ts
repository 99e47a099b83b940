import { AdapterTestClient } from '@rollout/testing/adapter-conformance';
import type {
  CheckResult,
  CreateSessionResponse,
  HandleReportResponse,
  LeaseInstance,
  QuotaResult,
  ReportInstance,
} from '@rollout/contracts';
import { budgetAdapterSystem } from '../../test/budget-adapter-system';

const HOUR = 3_600_000;
const START = Date.parse('2030-01-01T00:00:00Z');
const at = (hours: number) => new Date(START + hours * HOUR).toISOString();

const config = {
  budgets: { acme: { 'physical:host': 10 }, burst: { 'physical:host': 10 } },
  default: { 'physical:host': 20, 'virtual:instance': 100 },
};

const adapter = budgetAdapterSystem();
let client: AdapterTestClient;
let sessionId: string;

beforeAll(async () => {
  client = new AdapterTestClient(adapter.nc, 'budget', {
    namespace: adapter.namespace,
    timeoutMs: 10_000,
  });
  const created = await client.call<CreateSessionResponse>('createSession', {
    adapterConfig: config,
    inferredTypes: {},
  });
  expect(created.body.status.status).toBe('OK');
  sessionId = created.body.sessionId;
});

/** A lease of `hosts` hosts for `hours` hours from START. */
function lease(project: string, id: string, hosts: number, hours: number): LeaseInstance {
  return {
    hook: 'create',
    context: {
      userId: 'alice',
      projectId: project,
      regionName: 'RegionOne',
      requestId: `req-${id}`,
    },
    lease: {
      id,
      name: id,
      startDate: at(0),
      endDate: at(hours),
      reservations: [{ resourceType: 'physical:host', min: hosts, max: hosts }],
    },
  };
}

async function quota(
  instance: LeaseInstance,
  amount: number,
  dedupId: string,
  bestEffort = false,
): Promise<QuotaResult> {
  const reply = await client.call<QuotaResult>('handleQuota', {
    sessionId,
    instance,
    quotaRequest: { quotas: { 'physical:host': { amount, bestEffort } }, dedupId },
  });
  return reply.body;
}

const granted = async (
  instance: LeaseInstance,
  amount: number,
  dedupId: string,
  bestEffort = false,
) => (await quota(instance, amount, dedupId, bestEffort)).quotas['physical:host'].grantedAmount;

async function report(...instances: ReportInstance[]): Promise<void> {
  const reply = await client.call<HandleReportResponse>('handleReport', { sessionId, instances });
  expect(reply.body.status.status).toBe('OK');
}

async function check(instance: LeaseInstance): Promise<CheckResult> {
  return (await client.call<CheckResult>('handleCheck', { sessionId, instance })).body;
}

/** What is left of a project's host-hours: asked best effort by a throwaway lease, then given back. */
async function left(project: string): Promise<number> {
  const probe = lease(project, `probe-${Math.random()}`, 1, 1);
  const hours = await granted(probe, 1_000_000, `probe-${probe.lease.id}`, true);
  await report({
    kind: 'ended',
    context: probe.context,
    lease: probe.lease,
    at: probe.lease.startDate,
  });
  return hours;
}

describe('budget-adapter', () => {
  it('grants quota until the budget is spent, then checks deny with the budget in the message', async () => {
    const first = lease('acme', 'acme-1', 1, 6);
    expect(await granted(first, 6, 'acme-1')).toBe(6);
    const second = lease('acme', 'acme-2', 1, 6);
    const refused = await quota(second, 6, 'acme-2');
    expect(refused.quotas['physical:host'].grantedAmount).toBe(0);
    expect(refused.status.message).toBe('Project acme has 4 of its 10 physical:host hours left.');
    expect((await check(second)).status.status).toBe('OK');
    expect(await granted(second, 6, 'acme-2-best-effort', true)).toBe(4);

    const denied = await check(lease('acme', 'acme-3', 1, 1));
    expect(denied.status).toMatchObject({
      code: 403,
      status: 'PERMISSION_DENIED',
      message: 'Project acme has used its budget of 10 physical:host hours.',
    });
    expect(denied.validDuration).toBeGreaterThan(0);
    // Another project has its own (default) budget; a type with no budget is not limited.
    expect((await check(lease('other', 'other-1', 1, 1))).status.status).toBe('OK');
    const unlimited = lease('acme', 'acme-4', 1, 1);
    unlimited.lease.reservations = [{ resourceType: 'network', amount: 1 }];
    expect((await check(unlimited)).status.status).toBe('OK');
  });

  it('refunds what an ended lease did not use, and all of it for a create that failed (ended at its start)', async () => {
    const long = lease('refunds', 'refunds-1', 2, 5);
    expect(await granted(long, 10, 'refunds-1')).toBe(10);
    const failed = lease('refunds', 'refunds-2', 1, 4);
    expect(await granted(failed, 4, 'refunds-2')).toBe(4);
    expect(await left('refunds')).toBe(6);

    // Ended after 1.25 h of 5: 2 hosts × 1.25 h = 2.5, rounded up to 3 host-hours, stay charged.
    await report({ kind: 'ended', context: long.context, lease: long.lease, at: at(1.25) });
    await report({
      kind: 'ended',
      context: failed.context,
      lease: failed.lease,
      at: failed.lease.startDate,
    });
    expect(await left('refunds')).toBe(17);
    // A repeated report changes nothing.
    await report({ kind: 'ended', context: long.context, lease: long.lease, at: at(1.25) });
    expect(await left('refunds')).toBe(17);
  });

  it('an updated lease replaces the old one for accounting (shrink refunds, an update undone returns the growth)', async () => {
    const before = lease('updates', 'updates-1', 2, 5);
    expect(await granted(before, 10, 'updates-1')).toBe(10);
    const shrunk = lease('updates', 'updates-1', 1, 5);
    await report({ kind: 'updated', context: shrunk.context, lease: shrunk.lease, at: at(0) });
    expect(await left('updates')).toBe(15);

    const grown = {
      ...lease('updates', 'updates-1', 3, 5),
      hook: 'update' as const,
      currentLease: shrunk.lease,
    };
    expect(await granted(grown, 10, 'updates-1-grow')).toBe(10);
    expect(await left('updates')).toBe(5);
    // The update did not happen: reported back to the lease as it was.
    await report({ kind: 'updated', context: shrunk.context, lease: shrunk.lease, at: at(0) });
    expect(await left('updates')).toBe(15);
  });

  it('concurrent requests never spend the same budget twice', async () => {
    const answers = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        granted(lease('burst', `burst-${i}`, 1, 1), 1, `burst-${i}`),
      ),
    );
    expect(answers.filter((g) => g === 1)).toHaveLength(10);
    expect(answers.filter((g) => g === 0)).toHaveLength(15);
  });

  it('keeps sessions, charges and dedup ids across a crash: a retried dedup id is answered as before and charged once', async () => {
    const first = lease('restart', 'restart-1', 1, 12);
    expect(await granted(first, 12, 'restart-1')).toBe(12);
    await adapter.restart('SIGKILL');
    expect(await granted(first, 12, 'restart-1')).toBe(12);
    expect(await left('restart')).toBe(8);
    expect(await adapter.metrics()).toMatch(
      /budget_adapter_calls_total\{method="handleQuota",status="OK"/,
    );
  }, 90_000);
});
