import { EXTERNAL_DEFAULT_DENIAL, ExternalHttpPort, ExternalHttpResponse, ExternalServiceFilter, ExternalServiceSettings } from './external-service';
import { EnforcementContext, LeaseRequest } from './model';

const context: EnforcementContext = { userId: 'u1', projectId: 'p1', regionName: 'RegionOne', requestId: 'r1' };
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
};

/** A port answering from a script, recording each request (the HTTP adapter has its own tests). */
function port(answer: () => Promise<ExternalHttpResponse>) {
  const requests: Array<{ url: string; body: unknown; headers: Record<string, string>; timeoutMs: number; hook: string }> = [];
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
    expect(await new ExternalServiceFilter(settings, http).checkCreate(context, lease)).toBeUndefined();
    expect(requests).toEqual([
      {
        url: 'http://policy/check-create',
        headers: { 'X-Auth-Token': 's3cret', 'X-Request-Id': 'r1' },
        timeoutMs: 500,
        hook: 'check-create',
        body: {
          context: { user_id: 'u1', project_id: 'p1', region_name: 'RegionOne' },
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
    await new ExternalServiceFilter({ ...settings, auth: 'bearer' }, http).checkUpdate(context, lease, lease);
    expect(requests[0].url).toBe('http://policy/check-update');
    expect(requests[0].headers).toEqual({ Authorization: 'Bearer s3cret', 'X-Request-Id': 'r1' });
    expect(Object.keys(requests[0].body as object)).toEqual(['context', 'current_lease', 'lease']);
  });

  it('keeps a denial message storable and bounded', async () => {
    const { http } = port(async () => ({ status: 403, body: { message: `no\u0000pe${'!'.repeat(5000)}` } }));
    const result = (await new ExternalServiceFilter(settings, http).checkCreate(context, lease)) as { message: string };
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
      expect(await new ExternalServiceFilter({ ...settings, allowOnError }, http).checkCreate(context, lease)).toEqual({ message });
    }
  });

  it.each([
    ['a 500', async () => ({ status: 500, body: undefined }), 'External service answered check-create with HTTP 500.'],
    ['a redirect', async () => ({ status: 302, body: undefined }), 'External service answered check-create with HTTP 302.'],
    [
      'a transport error',
      async () => Promise.reject(new Error('connection refused')),
      'External service call to check-create failed: connection refused.',
    ],
  ])('treats %s as an error: denied, or allowed as fail-open with allow_on_error', async (_name, answer, reason) => {
    const denied = await new ExternalServiceFilter(settings, port(answer).http).checkCreate(context, lease);
    expect(denied).toEqual({ message: reason });
    const failedOpen = await new ExternalServiceFilter({ ...settings, allowOnError: true }, port(answer).http).checkCreate(context, lease);
    expect(failedOpen).toEqual({ failOpen: reason });
  });

  it('throws from on_end on anything but 204, so the chain records the failure', async () => {
    await expect(
      new ExternalServiceFilter(settings, port(async () => ({ status: 204, body: undefined })).http).onEnd(context, lease),
    ).resolves.toBeUndefined();
    await expect(
      new ExternalServiceFilter(settings, port(async () => ({ status: 503, body: undefined })).http).onEnd(context, lease),
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
          extra: { id: 'r-uuid', lease_id: 'l-uuid', created_at: 'x', status: 'pending', hypervisor_properties: '[]', allocations: [{ id: '1', hypervisor_hostname: 'h1' }] },
        },
      ],
    };
    await new ExternalServiceFilter(settings, http).onEnd(context, withBookkeeping);
    const sent = (requests[0].body as { lease: { reservations: object[] } }).lease.reservations[0];
    expect(sent).toEqual({ resource_type: 'physical:host', min: 1, max: 2, hypervisor_properties: '[]', allocations: [{ id: '1', hypervisor_hostname: 'h1' }] });
    expect(requests[0].url).toBe('http://policy/on-end');
  });
});
