import { OTHER_TEAM_TOKEN, P, allowSsh, previewSystem } from '../../test/preview-system';

const DEAD_LETTERS = '/v1/projects/acme/locations/global/deadLetters';

describe('dead letters, through the gateway', () => {
  const { call, sendTraffic, trafficEvent: event } = previewSystem();

  beforeAll(async () => {
    expect((await call('POST', `${P}?firewallPolicyId=edge`, { rules: [allowSsh] })).status).toBe(
      200,
    );
  });

  it('shows the traffic a producer sent to a mistyped policy id, by policy and reason, with samples', async () => {
    await sendTraffic('egde', [event('10.0.1.1'), event('10.0.1.2')]);
    await sendTraffic('edge', [event('10.0.1.300'), event('10.0.1.3')]);

    const all = await call('GET', DEAD_LETTERS);
    expect(all.status).toBe(200);
    expect(all.body).toEqual({
      total: 3,
      byPolicy: [
        {
          policy: 'egde',
          total: 2,
          byReason: [{ reason: 'unknown_policy', count: 2 }],
          lastTime: expect.any(String),
        },
        {
          policy: 'edge',
          total: 1,
          byReason: [{ reason: 'bad_address', count: 1 }],
          lastTime: expect.any(String),
        },
      ],
      samples: expect.arrayContaining([
        {
          time: expect.any(String),
          policy: 'egde',
          reason: 'unknown_policy',
          detail: 'no live policy projects/acme/locations/global/firewallPolicies/egde',
        },
      ]),
    });
    expect(all.body.samples).toHaveLength(3);
    const times = all.body.samples.map((s: { time: string }) => Date.parse(s.time));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const edge = await call('GET', `${DEAD_LETTERS}?policy=edge`);
    expect(edge.body).toMatchObject({
      total: 1,
      byPolicy: [{ policy: 'edge' }],
      samples: [{ policy: 'edge', reason: 'bad_address' }],
    });
  });

  it('is project-scoped like every read, and validates the policy id', async () => {
    expect((await call('GET', DEAD_LETTERS, undefined, OTHER_TEAM_TOKEN)).status).toBe(404);
    const other = await call(
      'GET',
      '/v1/projects/other/locations/global/deadLetters',
      undefined,
      OTHER_TEAM_TOKEN,
    );
    expect(other).toEqual({ status: 200, body: { total: 0, byPolicy: [], samples: [] } });
    expect((await call('GET', `${DEAD_LETTERS}?policy=a.b`)).status).toBe(400);
  });
});
