import { buildChain } from './build-chain';
import { EnforcementConfigError, parseEnforcementConfig } from './config';
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
  endDate: new Date('2026-11-23T10:00:00Z'),
  reservations: [{ resourceType: 'physical:host', min: 1, max: 6 }],
};
const ports = {
  http: { post: async () => ({ status: 204, body: undefined }) },
};

function configError(raw: unknown): string {
  try {
    parseEnforcementConfig(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(EnforcementConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a config error');
}

describe('enforcement config', () => {
  it('builds the chain in the configured order with each mode', async () => {
    const config = parseEnforcementConfig({
      enabled_filters: ['MaxReservationSize', 'MaxLeaseDuration'],
      exempted_projects: ['admin'],
      filters: {
        MaxLeaseDuration: { max_lease_duration: 3600, mode: 'dryrun' },
        MaxReservationSize: { limits: { 'physical:host': 4 } },
      },
    });
    const chain = buildChain(config, ports);
    expect(chain.filterNames).toEqual(['MaxReservationSize', 'MaxLeaseDuration']);
    const decision = await chain.checkCreate(context, lease, 0);
    expect(decision.denial?.filter).toBe('MaxReservationSize');
    const admin = await chain.checkCreate({ ...context, projectId: 'admin' }, lease, 0);
    expect(admin).toMatchObject({ allowed: true, exempted: true });
    const fits = await chain.checkCreate(context, { ...lease, reservations: [] }, 0);
    expect(fits.allowed).toBe(true);
    expect(fits.steps.map((s) => s.result)).toEqual(['allow', 'would_deny']);
  });

  it('fills ExternalService defaults', () => {
    const config = parseEnforcementConfig({
      enabled_filters: ['ExternalService'],
      filters: { ExternalService: { endpoint: 'http://policy:8080', token: 't' } },
    });
    expect(config.externalService).toEqual({
      endpoint: 'http://policy:8080/',
      token: 't',
      auth: 'x-auth-token',
      timeoutMs: 2000,
      allowOnError: false,
      statusOnError: 'PERMISSION_DENIED',
    });
  });

  it('reads auth_url and status_on_error (an HTTP status, as Envoy ext_authz) for ExternalService', () => {
    const config = parseEnforcementConfig({
      enabled_filters: ['ExternalService'],
      filters: {
        ExternalService: {
          endpoint: 'http://policy:8080',
          token: 't',
          auth_url: 'https://keystone:5000/v3',
          status_on_error: 503,
        },
      },
    });
    expect(config.externalService).toMatchObject({
      authUrl: 'https://keystone:5000/v3',
      statusOnError: 'UNAVAILABLE',
    });
  });

  it('reads the ExternalService token from the environment variable named by token_env', () => {
    const config = parseEnforcementConfig(
      {
        enabled_filters: ['ExternalService'],
        filters: { ExternalService: { endpoint: 'https://policy/v1/', token_env: 'POLICY_TOKEN' } },
      },
      { POLICY_TOKEN: 'from-a-secret' },
    );
    expect(config.externalService?.token).toBe('from-a-secret');
    expect(() =>
      parseEnforcementConfig(
        {
          enabled_filters: ['ExternalService'],
          filters: { ExternalService: { endpoint: 'https://policy/', token_env: 'POLICY_TOKEN' } },
        },
        {},
      ),
    ).toThrow(
      'filters.ExternalService.token_env: the environment variable POLICY_TOKEN is not set',
    );
  });

  it('accepts the empty chain (nothing enforced)', async () => {
    const chain = buildChain(
      parseEnforcementConfig({ enabled_filters: [], exempted_projects: [] }),
      ports,
    );
    expect(chain.filterNames).toEqual([]);
    expect((await chain.checkCreate(context, lease, 0)).allowed).toBe(true);
    expect(parseEnforcementConfig(null).enabledFilters).toEqual([]);
  });

  it.each([
    [{ enabled_filters: ['NovaQuota'] }, 'enabled_filters[0]: unknown filter "NovaQuota"'],
    [
      { enabled_filters: 'MaxLeaseDuration' },
      'enabled_filters: must be a list of non-empty strings',
    ],
    [
      { filters: { MaxReservationSize: { limits: { 'physical:hosts': 4 } } } },
      'filters.MaxReservationSize.limits.physical:hosts: unknown resource type (measured: physical:host, virtual:instance, virtual:floatingip)',
    ],
    [
      {
        filters: { MaxReservationSize: { project_overrides: { p1: { 'virtual:instance': -2 } } } },
      },
      'filters.MaxReservationSize.project_overrides.p1.virtual:instance: must be a non-negative integer',
    ],
    [
      { filters: { MaxActiveLeases: { max_active_leases: 2.5 } } },
      'filters.MaxActiveLeases.max_active_leases: must be a non-negative integer, got 2.5',
    ],
    [
      { filters: { ExternalService: { endpoint: 'policy:8080' } } },
      'filters.ExternalService.endpoint: must be an http(s) URL',
    ],
    [
      {
        enabled_filters: ['MaxActiveLeases'],
        filters: { MaxActiveLeases: { max_active_leases: 2.5 } },
      },
      'filters.MaxActiveLeases.max_active_leases: must be a non-negative integer, got 2.5',
    ],
    [
      {
        enabled_filters: ['ExternalService'],
        filters: { ExternalService: { endpoint: 'http://x/', token: 't', token_env: 'T' } },
      },
      'filters.ExternalService.token: give token or token_env, not both',
    ],
    [
      {
        enabled_filters: ['ExternalService'],
        filters: { ExternalService: { endpoint: 'http://x/', token: 't', timeout_ms: 0 } },
      },
      'filters.ExternalService.timeout_ms: must be greater than 0',
    ],
    [
      {
        enabled_filters: ['ExternalService'],
        filters: { ExternalService: { endpoint: 'http://x/', token: 't', auth: 'basic' } },
      },
      'filters.ExternalService.auth: must be "x-auth-token" or "bearer"',
    ],
    [
      { exempted_projects: ['admin', ''] },
      'exempted_projects: must be a list of non-empty strings',
    ],
    [{ enabled_filters: [], extra: true }, '(root).extra: unknown setting'],
    [
      {
        enabled_filters: ['MaxLeaseDuration'],
        filters: { MaxLeaseDuration: { max_lease_duration: -1 } },
      },
      'filters.MaxLeaseDuration.max_lease_duration: must be a non-negative integer, got -1',
    ],
    [
      { enabled_filters: ['MaxLeaseDuration'] },
      'filters.MaxLeaseDuration.max_lease_duration: must be a non-negative integer',
    ],
    [
      {
        enabled_filters: ['MaxActiveLeases'],
        filters: { MaxActiveLeases: { max_active_leases: 5, mode: 'audit' } },
      },
      'filters.MaxActiveLeases.mode: must be "enforce" or "dryrun"',
    ],
    [
      { filters: { MaxLeaseDuration: { max_duration: 5 } } },
      'filters.MaxLeaseDuration.max_duration: unknown setting',
    ],
    [
      {
        enabled_filters: ['ExternalService'],
        filters: { ExternalService: { endpoint: 'ftp://x', token: 't' } },
      },
      'filters.ExternalService.endpoint: must be an http(s) URL',
    ],
    [
      {
        enabled_filters: ['ExternalService'],
        filters: { ExternalService: { endpoint: 'http://x/', token: 't', allow_on_error: 'yes' } },
      },
      'filters.ExternalService.allow_on_error: must be true or false',
    ],
    [
      {
        enabled_filters: ['MaxLeaseDuration', 'MaxLeaseDuration'],
        filters: { MaxLeaseDuration: { max_lease_duration: 1 } },
      },
      'enabled_filters[1]: filter "MaxLeaseDuration" is listed twice',
    ],
    [
      {
        enabled_filters: ['ExternalService'],
        filters: { ExternalService: { endpoint: 'http://x/', token: 't', status_on_error: 418 } },
      },
      'filters.ExternalService.status_on_error: must be one of 403, 429, 500, 503, 504, got 418',
    ],
    [
      {
        enabled_filters: ['ExternalService'],
        filters: { ExternalService: { endpoint: 'http://x/', token: 't', auth_url: 'keystone' } },
      },
      'filters.ExternalService.auth_url: must be an http(s) URL',
    ],
    ['just a string', '(root): must be a mapping'],
  ])('rejects %j with a message naming the setting', (raw, message) => {
    expect(configError(raw)).toContain(`invalid enforcement config: ${message}`);
  });
});
