import {
  EXTERNAL_DEFAULT_DENIAL,
  ExternalHttpPort,
  ExternalHttpResponse,
  ExternalServiceFilter,
  ExternalServiceSettings,
  hookUrl,
} from './external-service';
import { EnforcementContext, LeaseRequest } from './model';

const context: EnforcementContext = {
  userId: 'u1',
  projectId: 'p1',
  regionName: 'RegionOne',
  requestId: 'r1',
};
const lease: LeaseRequest = {
  name: 'l1',
  startDate: new Date('2026-11-22T10:00:00Z'),
  endDate: new Date('2026-11-22T12:00:00Z'),
  reservations: [{ resourceType: 'virtual:floatingip', amount: 1, extra: { network_id: 'ext' } }],
};
const settings: ExternalServiceSettings = {
  endpoint: 'http://policy/',
  auth: 'x-auth-token',
  token: 's3cret',
  timeoutMs: 500,
  allowOnError: false,
  statusOnError: 'PERMISSION_DENIED',
};

/** A port answering from a script, recording each request (the HTTP adapter has its own tests). */
function port(answer: () => Promise<ExternalHttpResponse>) {
  const requests: Array<{
    url: string;
    body: unknown;
    headers: Record<string, string>;
    timeoutMs: number;
    hook: string;
  }> = [];
  const http: ExternalHttpPort = {
    post: async (url, body, options) => {
      requests.push({ url, body, ...options });
      return answer();
    },
  };
  return { http, requests };
}

describe('ExternalService', () => {
  it('sends Blazar payloads in snake_case with UTC dates, and 204 allows', async () => {
    const { http, requests } = port(async () => ({ status: 204, body: undefined }));
    expect(
      await new ExternalServiceFilter(settings, http).checkCreate(context, lease),
    ).toBeUndefined();
    expect(requests).toEqual([
      {
        url: 'http://policy/v1/check-create',
        headers: { 'X-Auth-Token': 's3cret', 'X-Request-Id': 'r1' },
        timeoutMs: 500,
        hook: 'check-create',
        body: {
          context: { user_id: 'u1', project_id: 'p1', auth_url: '', region_name: 'RegionOne' },
          lease: {
            name: 'l1',
            start_date: '2026-11-22T10:00:00.000Z',
            end_date: '2026-11-22T12:00:00.000Z',
            reservations: [{ resource_type: 'virtual:floatingip', amount: 1, network_id: 'ext' }],
          },
        },
      },
    ]);
  });

  it('sends current_lease on update and uses a bearer token when configured', async () => {
    const { http, requests } = port(async () => ({ status: 204, body: undefined }));
    await new ExternalServiceFilter({ ...settings, auth: 'bearer' }, http).checkUpdate(
      context,
      lease,
      lease,
    );
    expect(requests[0].url).toBe('http://policy/v1/check-update');
    expect(requests[0].headers).toEqual({ Authorization: 'Bearer s3cret', 'X-Request-Id': 'r1' });
    expect(Object.keys(requests[0].body as object)).toEqual(['context', 'current_lease', 'lease']);
  });

  it('keeps a denial message storable and bounded', async () => {
    const { http } = port(async () => ({
      status: 403,
      body: { message: `no\u0000pe${'!'.repeat(5000)}` },
    }));
    const result = (await new ExternalServiceFilter(settings, http).checkCreate(
      context,
      lease,
    )) as { message: string };
    expect(result.message.startsWith('no\ufffdpe!!!')).toBe(true);
    expect(result.message).toHaveLength(1024);
  });

  it.each([
    [{ message: 'over budget' }, 'over budget'],
    [{ error: 'no hosts for you' }, 'no hosts for you'],
    [undefined, EXTERNAL_DEFAULT_DENIAL],
  ])('403 with %j denies with "%s", whatever allow_on_error says', async (body, message) => {
    for (const allowOnError of [false, true]) {
      const { http } = port(async () => ({ status: 403, body }));
      expect(
        await new ExternalServiceFilter({ ...settings, allowOnError }, http).checkCreate(
          context,
          lease,
        ),
      ).toEqual({ message });
    }
  });

  it.each([
    [
      'a 500',
      async () => ({ status: 500, body: undefined }),
      'External service answered check-create with HTTP 500.',
    ],
    [
      'a redirect',
      async () => ({ status: 302, body: undefined }),
      'External service answered check-create with HTTP 302.',
    ],
    [
      'a transport error',
      async () => Promise.reject(new Error('connection refused')),
      'External service call to check-create failed: connection refused.',
    ],
    [
      "a 200 (not the protocol's 204)",
      async () => ({ status: 200, body: { allowed: true } }),
      'External service answered check-create with HTTP 200.',
    ],
  ])(
    'treats %s as an error: denied as a failure, or allowed as fail-open with allow_on_error',
    async (_name, answer, reason) => {
      const denied = await new ExternalServiceFilter(settings, port(answer).http).checkCreate(
        context,
        lease,
      );
      expect(denied).toEqual({ message: reason, failure: { status: 'PERMISSION_DENIED' } });
      const configured = await new ExternalServiceFilter(
        { ...settings, statusOnError: 'UNAVAILABLE' },
        port(answer).http,
      ).checkCreate(context, lease);
      expect(configured).toEqual({ message: reason, failure: { status: 'UNAVAILABLE' } });
      const failedOpen = await new ExternalServiceFilter(
        { ...settings, allowOnError: true },
        port(answer).http,
      ).checkCreate(context, lease);
      expect(failedOpen).toEqual({ failOpen: reason });
    },
  );

  it('throws from on_end on anything but a 2xx, so the chain records the failure and the outbox retries', async () => {
    for (const status of [200, 202, 204]) {
      await expect(
        new ExternalServiceFilter(
          settings,
          port(async () => ({ status, body: undefined })).http,
        ).onEnd(context, lease),
      ).resolves.toBeUndefined();
    }
    await expect(
      new ExternalServiceFilter(
        settings,
        port(async () => ({ status: 403, body: undefined })).http,
      ).onEnd(context, lease),
    ).rejects.toThrow('External service answered on-end with HTTP 403.');
    await expect(
      new ExternalServiceFilter(
        settings,
        port(async () => ({ status: 503, body: undefined })).http,
      ).onEnd(context, lease),
    ).rejects.toThrow('External service answered on-end with HTTP 503.');
  });

  it('sends no ids or bookkeeping fields, only what the user controls', async () => {
    const { http, requests } = port(async () => ({ status: 204, body: undefined }));
    const withBookkeeping: LeaseRequest = {
      ...lease,
      reservations: [
        {
          resourceType: 'physical:host',
          min: 1,
          max: 2,
          extra: {
            id: 'r-uuid',
            lease_id: 'l-uuid',
            created_at: 'x',
            status: 'pending',
            hypervisor_properties: '[]',
            allocations: [{ id: '1', hypervisor_hostname: 'h1' }],
          },
        },
      ],
    };
    await new ExternalServiceFilter(settings, http).onEnd(context, withBookkeeping);
    const sent = (requests[0].body as { lease: { reservations: object[] } }).lease.reservations[0];
    expect(sent).toEqual({
      resource_type: 'physical:host',
      min: 1,
      max: 2,
      hypervisor_properties: '[]',
      allocations: [{ id: '1', hypervisor_hostname: 'h1' }],
    });
    expect(requests[0].url).toBe('http://policy/v1/on-end');
  });

  it("posts each hook in the seed's form, /v1/<hook>, whether or not the endpoint names v1", () => {
    expect(hookUrl('http://policy:8080/', 'check-create')).toBe(
      'http://policy:8080/v1/check-create',
    );
    expect(hookUrl('http://policy:8080', 'on-end')).toBe('http://policy:8080/v1/on-end');
    expect(hookUrl('http://policy:8080/v1/', 'check-update')).toBe(
      'http://policy:8080/v1/check-update',
    );
    expect(hookUrl('https://gw/enforcement/v1', 'check-create')).toBe(
      'https://gw/enforcement/v1/check-create',
    );
    expect(hookUrl('https://gw/enforcement/', 'check-create')).toBe(
      'https://gw/enforcement/v1/check-create',
    );
  });

  it("carries auth_url in the context when one is configured, Blazar's own first, in the seed's field order", async () => {
    const { http, requests } = port(async () => ({ status: 204, body: undefined }));
    const filter = new ExternalServiceFilter(
      { ...settings, authUrl: 'https://keystone:5000/v3' },
      http,
    );
    await filter.checkCreate(context, lease);
    await filter.checkCreate({ ...context, authUrl: 'https://blazar-keystone/v3' }, lease);
    const sent = requests.map((r) => (r.body as { context: object }).context);
    expect(sent[0]).toEqual({
      user_id: 'u1',
      project_id: 'p1',
      auth_url: 'https://keystone:5000/v3',
      region_name: 'RegionOne',
    });
    expect(Object.keys(sent[0])).toEqual(['user_id', 'project_id', 'auth_url', 'region_name']);
    expect(sent[1]).toMatchObject({ auth_url: 'https://blazar-keystone/v3' });
  });

  it('sends auth_url as a string on every hook, empty when none is known, as Blazar always sends one', async () => {
    const { http, requests } = port(async () => ({ status: 204, body: undefined }));
    const filter = new ExternalServiceFilter(settings, http);
    await filter.checkCreate(context, lease);
    await filter.checkUpdate(context, lease, lease);
    await filter.onEnd(context, lease);
    const sent = requests.map((r) => (r.body as { context: Record<string, unknown> }).context);
    expect(sent.map((c) => c.auth_url)).toEqual(['', '', '']);
    expect(Object.keys(sent[2])).toEqual(['user_id', 'project_id', 'auth_url', 'region_name']);
  });

  it("sends the id users see on current_lease and on on-end's lease (as Blazar sends its stored lease), none on check-create", async () => {
    const { http, requests } = port(async () => ({ status: 204, body: undefined }));
    const filter = new ExternalServiceFilter(settings, http);
    const withId = { ...context, apiLeaseId: 'gpu-week', adapterLeaseId: 'ledger-uid' };
    await filter.checkCreate(withId, lease);
    await filter.checkUpdate(withId, lease, lease);
    await filter.onEnd(withId, lease);
    const [create, update, end] = requests.map((r) => r.body as Record<string, { id?: string }>);
    expect(create.lease.id).toBeUndefined();
    expect(update.current_lease.id).toBe('gpu-week');
    expect(update.lease.id).toBeUndefined();
    expect(end.lease.id).toBe('gpu-week');
    expect(JSON.stringify(requests.map((r) => r.body))).not.toContain('ledger-uid');
  });
});
