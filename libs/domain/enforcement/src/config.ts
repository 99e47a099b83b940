import { SIZED_RESOURCE_TYPES, type StatusCode } from '@rollout/contracts';
import { STATUS_ON_ERROR } from './external-service';
import { SizeLimits } from './filters';
import { AdapterFilterConfig, parseAdapterFilter } from './adapters/config';
import { FilterMode } from './model';

/**
 * Snake_case like Blazar's options (example in docs/enforcement.md). ExternalService's token
 * should come from `token_env`: a ConfigMap is no place for a secret.
 */
export type FilterName =
  'MaxLeaseDuration' | 'MaxActiveLeases' | 'MaxReservationSize' | 'ExternalService';
export const FILTER_NAMES: readonly FilterName[] = [
  'MaxLeaseDuration',
  'MaxActiveLeases',
  'MaxReservationSize',
  'ExternalService',
];

export interface EnforcementConfig {
  enabledFilters: string[];
  exemptedProjects: string[];
  modes: Record<FilterName, FilterMode>;
  adapters: Record<string, AdapterFilterConfig>;
  maxLeaseDuration: number;
  maxActiveLeases: { limit: number; projectOverrides: Record<string, number> };
  maxReservationSize: { limits: SizeLimits; projectOverrides: Record<string, SizeLimits> };
  externalService?: {
    endpoint: string;
    auth: 'x-auth-token' | 'bearer';
    token: string;
    timeoutMs: number;
    allowOnError: boolean;
    authUrl?: string;
    statusOnError: StatusCode;
  };
}

export class EnforcementConfigError extends Error {
  override readonly name = 'EnforcementConfigError';
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function fail(path: string, problem: string): never {
  throw new EnforcementConfigError(`invalid enforcement config: ${path}: ${problem}`);
}

function objectAt(v: unknown, path: string, allowed: readonly string[]): Obj {
  if (v === undefined || v === null) return {};
  if (!isObj(v)) fail(path, 'must be a mapping');
  for (const key of Object.keys(v))
    if (!allowed.includes(key))
      fail(`${path}.${key}`, `unknown setting (expected one of: ${allowed.join(', ')})`);
  return v;
}

function stringList(v: unknown, path: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || x === ''))
    fail(path, 'must be a list of non-empty strings');
  return v as string[];
}

function nonNegativeInt(v: unknown, path: string, fallback?: number): number {
  if (v === undefined && fallback !== undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
    fail(path, `must be a non-negative integer, got ${JSON.stringify(v)}`);
  return v;
}

function intMap(v: unknown, path: string): Record<string, number> {
  if (v === undefined || v === null) return {};
  if (!isObj(v)) fail(path, 'must be a mapping');
  return Object.fromEntries(
    Object.entries(v).map(([k, n]) => [k, nonNegativeInt(n, `${path}.${k}`)]),
  );
}

/** Limits per resource type: only the types the filter can measure, so a typo is not a silent no-op. */
function sizeLimits(v: unknown, path: string): SizeLimits {
  const limits = intMap(v, path);
  for (const type of Object.keys(limits)) {
    if (!(SIZED_RESOURCE_TYPES as readonly string[]).includes(type)) {
      fail(
        `${path}.${type}`,
        `unknown resource type (measured: ${SIZED_RESOURCE_TYPES.join(', ')})`,
      );
    }
  }
  return limits;
}

function sizeOverrides(v: unknown, path: string): Record<string, SizeLimits> {
  if (v === undefined || v === null) return {};
  if (!isObj(v)) fail(path, 'must be a mapping of project to limits');
  return Object.fromEntries(
    Object.entries(v).map(([project, limits]) => [
      project,
      sizeLimits(limits, `${path}.${project}`),
    ]),
  );
}

function mode(v: unknown, path: string): FilterMode {
  if (v === undefined) return 'enforce';
  if (v !== 'enforce' && v !== 'dryrun')
    fail(path, `must be "enforce" or "dryrun", got ${JSON.stringify(v)}`);
  return v;
}

export function parseEnforcementConfig(
  raw: unknown,
  env: Readonly<Record<string, string | undefined>> = {},
): EnforcementConfig {
  const root = objectAt(raw, '(root)', ['enabled_filters', 'exempted_projects', 'filters']);
  const enabled = stringList(root['enabled_filters'], 'enabled_filters');
  const rawFilters = root['filters'];
  const adapters: Record<string, AdapterFilterConfig> = {};
  const builtIn: Obj = {};
  if (isObj(rawFilters)) {
    for (const [name, value] of Object.entries(rawFilters)) {
      if (isObj(value) && 'adapter' in value && !FILTER_NAMES.includes(name as FilterName))
        adapters[name] = parseAdapterFilter(name, value, `filters.${name}`, fail);
      else builtIn[name] = value;
    }
  }
  enabled.forEach((name, i) => {
    if (!FILTER_NAMES.includes(name as FilterName) && !adapters[name]) {
      fail(
        `enabled_filters[${i}]`,
        `unknown filter "${name}" (known: ${[...FILTER_NAMES, ...Object.keys(adapters)].join(', ')}; an adapter filter is an entry of filters with an "adapter" key)`,
      );
    }
    if (enabled.indexOf(name) !== i)
      fail(`enabled_filters[${i}]`, `filter "${name}" is listed twice`);
  });
  const filters = objectAt(
    rawFilters === undefined || rawFilters === null || isObj(rawFilters) ? builtIn : rawFilters,
    'filters',
    FILTER_NAMES,
  );
  const modes = {} as Record<FilterName, FilterMode>;
  const settings = (name: FilterName, keys: string[]): Obj => {
    const s = objectAt(filters[name], `filters.${name}`, ['mode', ...keys]);
    modes[name] = mode(s['mode'], `filters.${name}.mode`);
    return s;
  };
  const isOn = (name: FilterName) => enabled.includes(name);

  const mld = settings('MaxLeaseDuration', ['max_lease_duration']);
  const mal = settings('MaxActiveLeases', ['max_active_leases', 'project_overrides']);
  const mrs = settings('MaxReservationSize', ['limits', 'project_overrides']);
  const ext = settings('ExternalService', [
    'endpoint',
    'token',
    'token_env',
    'auth',
    'timeout_ms',
    'allow_on_error',
    'auth_url',
    'status_on_error',
  ]);

  const config: EnforcementConfig = {
    enabledFilters: enabled,
    exemptedProjects: stringList(root['exempted_projects'], 'exempted_projects'),
    modes,
    adapters,
    // Checked whenever present, so a bad value never waits quietly for the day someone enables the filter.
    maxLeaseDuration:
      isOn('MaxLeaseDuration') || mld['max_lease_duration'] !== undefined
        ? nonNegativeInt(mld['max_lease_duration'], 'filters.MaxLeaseDuration.max_lease_duration')
        : 0,
    maxActiveLeases: {
      limit:
        isOn('MaxActiveLeases') || mal['max_active_leases'] !== undefined
          ? nonNegativeInt(mal['max_active_leases'], 'filters.MaxActiveLeases.max_active_leases')
          : 0,
      projectOverrides: intMap(
        mal['project_overrides'],
        'filters.MaxActiveLeases.project_overrides',
      ),
    },
    maxReservationSize: {
      limits: sizeLimits(mrs['limits'], 'filters.MaxReservationSize.limits'),
      projectOverrides: sizeOverrides(
        mrs['project_overrides'],
        'filters.MaxReservationSize.project_overrides',
      ),
    },
  };
  if (isOn('ExternalService')) config.externalService = parseExternal(ext, env);
  else if (Object.keys(ext).some((key) => key !== 'mode')) {
    // The token's variable is exempt: an operator may only provide it where the filter is on.
    parseExternal({ ...ext, token: 'unused', token_env: undefined }, env);
  }
  return config;
}

function parseExternal(
  s: Obj,
  env: Readonly<Record<string, string | undefined>>,
): NonNullable<EnforcementConfig['externalService']> {
  const path = 'filters.ExternalService';
  const endpoint = s['endpoint'];
  if (typeof endpoint !== 'string' || !isHttpUrl(endpoint))
    fail(`${path}.endpoint`, 'must be an http(s) URL');
  const token = externalToken(s, env, path);
  const auth = s['auth'] ?? 'x-auth-token';
  if (auth !== 'x-auth-token' && auth !== 'bearer')
    fail(`${path}.auth`, `must be "x-auth-token" or "bearer", got ${JSON.stringify(auth)}`);
  const timeoutMs = nonNegativeInt(s['timeout_ms'], `${path}.timeout_ms`, 2000);
  if (timeoutMs === 0) fail(`${path}.timeout_ms`, 'must be greater than 0');
  const allowOnError = s['allow_on_error'] ?? false;
  if (typeof allowOnError !== 'boolean') fail(`${path}.allow_on_error`, 'must be true or false');
  const authUrl = s['auth_url'];
  if (authUrl !== undefined && (typeof authUrl !== 'string' || !isHttpUrl(authUrl)))
    fail(`${path}.auth_url`, "must be an http(s) URL (Keystone's, sent as the context's auth_url)");
  const statusOnError = s['status_on_error'] ?? 403;
  if (typeof statusOnError !== 'number' || !STATUS_ON_ERROR[statusOnError]) {
    fail(
      `${path}.status_on_error`,
      `must be one of ${Object.keys(STATUS_ON_ERROR).join(', ')}, got ${JSON.stringify(statusOnError)}`,
    );
  }
  return {
    endpoint: endpoint.endsWith('/') ? endpoint : `${endpoint}/`,
    token,
    auth,
    timeoutMs,
    allowOnError,
    ...(authUrl ? { authUrl: authUrl as string } : {}),
    statusOnError: STATUS_ON_ERROR[statusOnError],
  };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

function externalToken(
  s: Obj,
  env: Readonly<Record<string, string | undefined>>,
  path: string,
): string {
  const token = s['token'];
  const tokenEnv = s['token_env'];
  if (token !== undefined && tokenEnv !== undefined)
    fail(`${path}.token`, 'give token or token_env, not both');
  if (tokenEnv !== undefined) {
    if (typeof tokenEnv !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenEnv))
      fail(`${path}.token_env`, 'must name an environment variable');
    const value = env[tokenEnv];
    if (!value) fail(`${path}.token_env`, `the environment variable ${tokenEnv} is not set`);
    return value;
  }
  if (typeof token !== 'string' || token === '')
    fail(`${path}.token`, 'must be a non-empty string (or use token_env)');
  return token;
}
