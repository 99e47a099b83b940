/** The launcher's own settings, from env vars, validated with one clear line per problem. */
export const SERVICES = [
  { name: 'gateway', portVar: 'GATEWAY_PORT', defaultPort: 3000 },
  { name: 'experiment-service', portVar: 'EXPERIMENT_SERVICE_PORT', defaultPort: 3001 },
  { name: 'evaluator', portVar: 'EVALUATOR_PORT', defaultPort: 3002 },
  { name: 'enforcement-service', portVar: 'ENFORCEMENT_SERVICE_PORT', defaultPort: 3003 },
  { name: 'inspection-rules-service', portVar: 'INSPECTION_RULES_SERVICE_PORT', defaultPort: 3004 },
] as const;

export type ServiceName = (typeof SERVICES)[number]['name'];

export interface LauncherSettings {
  ports: Record<ServiceName, number>;
  natsUrl: string;
  databaseUrl: string;
  readyTimeoutMs: number;
  stopTimeoutMs: number;
}

export class SettingsError extends Error {}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new SettingsError(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return value;
}

function url(env: NodeJS.ProcessEnv, name: string, fallback: string, schemes: string[]): string {
  const raw = env[name] || fallback;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new SettingsError(`${name} must be a URL like ${fallback} (got "${raw}")`);
  }
  if (!schemes.includes(parsed.protocol.replace(/:$/, ''))) {
    throw new SettingsError(`${name} must be a URL like ${fallback} (got "${raw}")`);
  }
  return raw;
}

export function readSettings(env: NodeJS.ProcessEnv): LauncherSettings {
  const ports = Object.fromEntries(
    SERVICES.map((s) => [s.name, integer(env, s.portVar, s.defaultPort, 1, 65535)]),
  ) as Record<ServiceName, number>;
  return {
    ports,
    natsUrl: url(env, 'NATS_URL', 'nats://127.0.0.1:4222', ['nats']),
    databaseUrl: url(env, 'DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/policy_rollout', ['postgres', 'postgresql']),
    readyTimeoutMs: integer(env, 'LAUNCHER_READY_TIMEOUT_MS', 60_000, 1, 3_600_000),
    stopTimeoutMs: integer(env, 'LAUNCHER_STOP_TIMEOUT_MS', 15_000, 1, 3_600_000),
  };
}

/** The same server with another database (to reach `postgres` for CREATE DATABASE). */
export function withDatabase(databaseUrl: string, database: string): string {
  const parsed = new URL(databaseUrl);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** The database name of a URL, checked so it can be quoted into CREATE DATABASE. */
export function databaseName(databaseUrl: string): string {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, ''));
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) {
    throw new SettingsError(`DATABASE_URL must name a lower-case database ([a-z_][a-z0-9_]*) (got "${name}")`);
  }
  return name;
}

export function hostAndPort(serverUrl: string, defaultPort: number): { host: string; port: number } {
  const parsed = new URL(serverUrl);
  return { host: parsed.hostname || '127.0.0.1', port: parsed.port ? Number(parsed.port) : defaultPort };
}
