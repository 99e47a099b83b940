import type { Status } from '@rollout/contracts';
import { EnforcementChain } from '../chain';
import { buildChain } from '../build-chain';
import { EnforcementConfigError, parseEnforcementConfig } from '../config';
import { EnforcementContext, EnforcementFilter, LeaseRequest } from '../model';
import { AdapterFilter } from './adapter-filter';
import { CheckCache } from './check-cache';
import {
  AdapterCalls,
  AdapterInstance,
  CheckResult,
  OK_STATUS,
  QuotaRequest,
  QuotaResult,
  ReportRecord,
} from './wire';

const context: EnforcementContext = {
  userId: 'u1',
  projectId: 'p1',
  regionName: 'RegionOne',
  requestId: 'r1',
  adapterLeaseId: 'lease-uid-1',
};
const lease: LeaseRequest = {
  name: 'l1',
  startDate: new Date('2026-12-01T00:00:00Z'),
  endDate: new Date('2026-12-01T10:00:00Z'),
  reservations: [{ resourceType: 'physical:host', min: 1, max: 2 }],
};
const denied = (message: string): Status => ({
  code: 429,
  status: 'RESOURCE_EXHAUSTED',
  message,
  details: [],
});

/** An adapter in memory that records every call. */
class RecordingAdapter implements AdapterCalls {
  checks: AdapterInstance[] = [];
  quotas: QuotaRequest[] = [];
  reports: ReportRecord[] = [];
  checkResult: CheckResult = { status: OK_STATUS, validDuration: 60_000, validUseCount: 10 };
  grant = (r: QuotaRequest): QuotaResult => ({
    status: OK_STATUS,
    quotas: Object.fromEntries(
      Object.entries(r.quotas).map(([k, q]) => [k, { grantedAmount: q.amount, validDuration: 0 }]),
    ),
  });
  async check(_h: string, instance: AdapterInstance) {
    this.checks.push(instance);
    return this.checkResult;
  }
  async quota(_h: string, _i: AdapterInstance, request: QuotaRequest) {
    this.quotas.push(request);
    return this.grant(request);
  }
  async report(_h: string, records: ReportRecord[]) {
    this.reports.push(...records);
    return OK_STATUS;
  }
}

let now = new Date('2026-11-30T00:00:00Z');
const clock = { now: () => now };

function filter(
  adapter: AdapterCalls,
  templates: ('check' | 'quota' | 'report')[] = ['check', 'quota', 'report'],
  cache?: CheckCache,
) {
  return new AdapterFilter(
    { name: 'budget', adapter: 'acme-budget', templates },
    adapter,
    clock,
    cache,
  );
}

describe('adapter filter', () => {
  beforeEach(() => (now = new Date('2026-11-30T00:00:00Z')));

  it('checks, then asks quota for the lease resource-hours, and admits when granted', async () => {
    const adapter = new RecordingAdapter();
    expect(await filter(adapter).checkCreate(context, lease)).toBeUndefined();
    expect(adapter.checks).toHaveLength(1);
    expect(adapter.checks[0].lease.id).toBe('lease-uid-1');
    expect(adapter.quotas).toEqual([
      {
        quotas: { 'physical:host': { amount: 20, bestEffort: false } },
        dedupId: expect.stringMatching(/^lease-uid-1:/),
      },
    ]);
  });

  it("denies with the adapter's message on a non-OK check, and caches the denial", async () => {
    const adapter = new RecordingAdapter();
    adapter.checkResult = {
      status: {
        code: 403,
        status: 'PERMISSION_DENIED',
        message: 'Project p1 is over its budget.',
        details: [],
      },
      validDuration: 1000,
      validUseCount: 5,
    };
    const f = filter(adapter, ['check'], new CheckCache({ now: () => now.getTime() }));
    expect(await f.checkCreate(context, lease)).toEqual({
      message: 'Project p1 is over its budget.',
    });
    expect(await f.checkCreate({ ...context, requestId: 'r2' }, lease)).toEqual({
      message: 'Project p1 is over its budget.',
    });
    expect(adapter.checks).toHaveLength(1);
  });

  it('throws on a failure status (the failure policy decides) and caches nothing', async () => {
    const adapter = new RecordingAdapter();
    adapter.checkResult = {
      status: { code: 503, status: 'UNAVAILABLE', message: 'db down', details: [] },
      validDuration: 1000,
      validUseCount: 5,
    };
    const f = filter(adapter, ['check'], new CheckCache({ now: () => now.getTime() }));
    await expect(f.checkCreate(context, lease)).rejects.toThrow(
      'Adapter acme-budget failed HandleCheck: UNAVAILABLE db down',
    );
    await expect(f.checkCreate(context, lease)).rejects.toThrow();
    expect(adapter.checks).toHaveLength(2);
  });

  it('denies when quota is short and returns what was granted', async () => {
    const adapter = new RecordingAdapter();
    adapter.grant = () => ({ status: denied('budget spent'), quotas: {} });
    expect(await filter(adapter).checkCreate(context, lease)).toEqual({ message: 'budget spent' });
    adapter.grant = () => ({
      status: OK_STATUS,
      quotas: { 'physical:host': { grantedAmount: 0, validDuration: 0 } },
    });
    expect(await filter(adapter).checkCreate(context, lease)).toEqual({
      message:
        'Quota from adapter acme-budget refused: 20 physical:host resource-hours asked, 0 granted.',
    });
    expect(adapter.reports).toEqual([]);
  });

  it('gives the same dedup id to the same request and another to a different lease', async () => {
    const adapter = new RecordingAdapter();
    await filter(adapter).checkCreate(context, lease);
    await filter(adapter).checkCreate({ ...context, requestId: 'retry' }, lease);
    await filter(adapter).checkCreate(context, {
      ...lease,
      endDate: new Date('2026-12-01T11:00:00Z'),
    });
    expect(adapter.quotas[0].dedupId).toBe(adapter.quotas[1].dedupId);
    expect(adapter.quotas[2].dedupId).not.toBe(adapter.quotas[0].dedupId);
  });

  it('asks only for growth on update; reports created, updated and ended', async () => {
    const adapter = new RecordingAdapter();
    const f = filter(adapter);
    const longer = { ...lease, endDate: new Date('2026-12-01T12:00:00Z') };
    expect(await f.checkUpdate(context, lease, longer)).toBeUndefined();
    expect(adapter.quotas[0].quotas).toEqual({ 'physical:host': { amount: 4, bestEffort: false } });
    expect(await f.checkUpdate(context, longer, lease)).toBeUndefined();
    expect(adapter.quotas).toHaveLength(1);
    await f.onCreated(context, lease);
    await f.onUpdated(context, longer, lease);
    now = new Date('2026-12-01T04:00:00Z');
    await f.onEnd(context, lease);
    expect(adapter.reports.map((r) => [r.kind, r.at, r.lease.id, r.lease.endDate])).toEqual([
      ['created', '2026-11-30T00:00:00.000Z', 'lease-uid-1', '2026-12-01T10:00:00.000Z'],
      ['updated', '2026-11-30T00:00:00.000Z', 'lease-uid-1', '2026-12-01T10:00:00.000Z'],
      ['ended', '2026-12-01T04:00:00.000Z', 'lease-uid-1', '2026-12-01T10:00:00.000Z'],
    ]);
  });

  it('reports ended at the moment the lease ended, however late the notification is sent (a retry)', async () => {
    const adapter = new RecordingAdapter();
    now = new Date('2026-12-01T09:00:00Z');
    await filter(adapter).onEnd({ ...context, endedAt: '2026-12-01T03:00:00.000Z' }, lease);
    expect(adapter.reports.map((r) => [r.kind, r.at])).toEqual([
      ['ended', '2026-12-01T03:00:00.000Z'],
    ]);
  });

  it('a check-only handler sends no quota and no reports', async () => {
    const adapter = new RecordingAdapter();
    const f = filter(adapter, ['check']);
    await f.checkCreate(context, lease);
    await f.onEnd(context, lease);
    expect([adapter.quotas.length, adapter.reports.length]).toEqual([0, 0]);
  });
});

describe('adapter filters in the chain', () => {
  const deny: EnforcementFilter = {
    name: 'Deny',
    checkCreate: async () => ({ message: 'no' }),
    checkUpdate: async () => ({ message: 'no' }),
    onEnd: async () => undefined,
  };

  it('a create refused by a later filter returns the quota in full (ended at the start)', async () => {
    const adapter = new RecordingAdapter();
    const chain = new EnforcementChain(
      [
        { filter: filter(adapter), mode: 'enforce' },
        { filter: deny, mode: 'enforce' },
      ],
      [],
    );
    const decision = await chain.checkCreate(context, lease, 0);
    expect(decision.denial).toEqual({ filter: 'Deny', message: 'no' });
    expect(adapter.reports.map((r) => [r.kind, r.at])).toEqual([
      ['ended', '2026-12-01T00:00:00.000Z'],
    ]);
  });

  it('a write that fails after admission returns the quota; on_end for filters without onAborted', async () => {
    const adapter = new RecordingAdapter();
    const ended: string[] = [];
    const plain: EnforcementFilter = {
      ...deny,
      name: 'Plain',
      onEnd: async () => void ended.push('plain'),
    };
    const chain = new EnforcementChain(
      [
        { filter: filter(adapter), mode: 'enforce' },
        { filter: plain, mode: 'enforce' },
      ],
      [],
    );
    await chain.abortCreate(context, lease);
    expect(adapter.reports.map((r) => [r.kind, r.at])).toEqual([
      ['ended', '2026-12-01T00:00:00.000Z'],
    ]);
    expect(ended).toEqual(['plain']);
  });

  it('parses adapter filters and builds them with their timeout and failure policy', async () => {
    const config = parseEnforcementConfig({
      enabled_filters: ['MaxLeaseDuration', 'budget'],
      filters: {
        MaxLeaseDuration: { max_lease_duration: 86400 },
        budget: {
          adapter: 'acme-budget',
          params: { hours: 100 },
          templates: ['check', 'quota'],
          failure_policy: 'open',
          timeout_ms: 250,
        },
        unused: { adapter: 'cmdb' },
      },
    });
    expect(config.adapters['budget']).toEqual({
      name: 'budget',
      adapter: 'acme-budget',
      params: { hours: 100 },
      templates: ['check', 'quota'],
      failurePolicy: 'open',
      timeoutMs: 250,
      mode: 'enforce',
    });
    expect(config.adapters['unused']).toMatchObject({
      templates: ['check'],
      failurePolicy: 'closed',
      timeoutMs: 1000,
    });
    const hanging: EnforcementFilter = {
      name: 'budget',
      checkCreate: () => new Promise(() => undefined),
      checkUpdate: async () => undefined,
      onEnd: async () => undefined,
    };
    const chain = buildChain(config, {
      http: { post: async () => ({ status: 204, body: undefined }) },
      adapterFilter: () => hanging,
      schedule: (_ms, fire) => {
        fire();
        return () => undefined;
      },
    });
    expect(chain.filterNames).toEqual(['MaxLeaseDuration', 'budget']);
    const decision = await chain.checkCreate(context, lease, 0);
    expect(decision.allowed).toBe(true);
    expect(decision.steps[1]).toEqual({
      filter: 'budget',
      mode: 'enforce',
      result: 'fail_open',
      message: 'Enforcement filter budget did not answer within 250 ms.',
    });
  });

  it.each([
    [{ enabled_filters: ['budget'] }, 'enabled_filters[0]: unknown filter "budget"'],
    [
      { filters: { budget: { adapter: 'Acme_Budget' } } },
      'filters.budget.adapter: must be an adapter name (RFC 1035 label such as acme-budget), got "Acme_Budget"',
    ],
    [
      { filters: { budget: { adapter: 'acme', templates: ['check', 'audit'] } } },
      'filters.budget.templates[1]: unknown template "audit" (known: check, quota, report)',
    ],
    [
      { filters: { budget: { adapter: 'acme', templates: [] } } },
      'filters.budget.templates: must be a non-empty list of: check, quota, report',
    ],
    [
      { filters: { budget: { adapter: 'acme', failure_policy: 'fail' } } },
      'filters.budget.failure_policy: must be "open" or "closed", got "fail"',
    ],
    [
      { filters: { budget: { adapter: 'acme', timeout_ms: 0 } } },
      'filters.budget.timeout_ms: must be an integer from 1 to 60000, got 0',
    ],
    [
      { filters: { budget: { adapter: 'acme', timeout: 5 } } },
      'filters.budget.timeout: unknown setting (expected one of: adapter, params, templates, failure_policy, timeout_ms, mode)',
    ],
    [
      { filters: { budget: { adapter: 'acme', params: [1] } } },
      "filters.budget.params: must be a mapping (the adapter's own settings)",
    ],
  ])('refuses %j: %s', (raw, expected) => {
    let message = '';
    try {
      parseEnforcementConfig(raw);
    } catch (error) {
      expect(error).toBeInstanceOf(EnforcementConfigError);
      message = (error as Error).message;
    }
    expect(message).toContain(expected);
  });
});
