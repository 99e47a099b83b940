/** The launcher's settings from env vars, each error one line naming the variable; no I/O. */
export const SERVICES = [
  { name: 'gateway', portVar: 'GATEWAY_PORT', defaultPort: 3000 },
  { name: 'experiment-service', portVar: 'EXPERIMENT_SERVICE_PORT', defaultPort: 3001 },
  { name: 'evaluator', portVar: 'EVALUATOR_PORT', defaultPort: 3002 },
  { name: 'enforcement-service', portVar: 'ENFORCEMENT_SERVICE_PORT', defaultPort: 3003 },
  { name: 'inspection-rules-service', portVar: 'INSPECTION_RULES_SERVICE_PORT', defaultPort: 3004 },
] as const;

export type ServiceName = (typeof SERVICES)[number]['name'];

export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/policy_rollout';

export interface LauncherSettings {
  ports: Record<ServiceName, number>;
  natsUrl: string;
  /** Replicas of the streams the services declare: 1 on one server, 3 on a 3-node cluster. */
  streamReplicas: number;
  databaseUrl: string;
  readyTimeoutMs: number;
  stopTimeoutMs: number;
  /** `pretty`: warnings and errors as lines, full JSON in a file per service; default `pretty` on a terminal. */
  logFormat?: 'pretty' | 'json';
  logDir: string;
}

export class SettingsError extends Error {
  override name = 'SettingsError';
}

function integer(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new SettingsError(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return value;
}

function url(env: NodeJS.ProcessEnv, name: string, fallback: string, schemes: string[]): string {
  const raw = env[name] || fallback;
  const bad = () => new SettingsError(`${name} must be a URL like ${fallback} (got "${raw}")`);
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw bad();
  }
  if (!schemes.includes(parsed.protocol.replace(/:$/, '')) || !parsed.hostname) throw bad();
  if (parsed.port !== '' && Number(parsed.port) === 0) throw bad();
  return raw;
}

/** `npm run demo` reads the development token here while `npm start` runs. */
export const DEV_TOKEN_FILE = 'tmp/dev-token';
export const DEV_NATS_OPERATOR_FILE = 'tmp/dev-nats-operator.json';

export const DEFAULT_LOG_DIR = 'tmp/logs';

function logFormat(env: NodeJS.ProcessEnv): LauncherSettings['logFormat'] {
  const raw = env.LOG_FORMAT;
  if (raw === undefined || raw === '') return undefined;
  if (raw !== 'pretty' && raw !== 'json')
    throw new SettingsError(`LOG_FORMAT must be pretty or json (got "${raw}")`);
  return raw;
}

/** An empty variable counts as unset. */
export function readSettings(env: NodeJS.ProcessEnv): LauncherSettings {
  const ports = Object.fromEntries(
    SERVICES.map((s) => [s.name, integer(env, s.portVar, s.defaultPort, 1, 65535)]),
  ) as Record<ServiceName, number>;
  const settings: LauncherSettings = {
    ports,
    natsUrl: url(env, 'NATS_URL', DEFAULT_NATS_URL, ['nats']),
    streamReplicas: integer(env, 'NATS_STREAM_REPLICAS', 1, 1, 5),
    databaseUrl: url(env, 'DATABASE_URL', DEFAULT_DATABASE_URL, ['postgres', 'postgresql']),
    readyTimeoutMs: integer(env, 'LAUNCHER_READY_TIMEOUT_MS', 60_000, 1, 3_600_000),
    stopTimeoutMs: integer(env, 'LAUNCHER_STOP_TIMEOUT_MS', 15_000, 1, 3_600_000),
    logFormat: logFormat(env),
    logDir: env.LAUNCHER_LOG_DIR || DEFAULT_LOG_DIR,
  };
  databaseName(settings.databaseUrl);
  checkPortsDistinct(settings);
  return settings;
}

/** Two services (or a service and a local NATS/Postgres) on one port cannot both listen. */
function checkPortsDistinct(settings: LauncherSettings): void {
  const used: { name: string; port: number }[] = SERVICES.map((s) => ({
    name: s.portVar,
    port: settings.ports[s.name],
  }));
  const nats = hostAndPort(settings.natsUrl, 4222);
  if (isLoopback(nats.host)) used.push({ name: 'NATS_URL', port: nats.port });
  const postgres = hostAndPort(settings.databaseUrl, 5432);
  if (isLoopback(postgres.host)) used.push({ name: 'DATABASE_URL', port: postgres.port });
  used.forEach((a, i) => {
    const b = used.slice(0, i).find((other) => other.port === a.port);
    if (b) throw new SettingsError(`${a.name} uses port ${a.port}, which ${b.name} uses already`);
  });
}

export function withDatabase(databaseUrl: string, database: string): string {
  const parsed = new URL(databaseUrl);
  parsed.pathname = `/${encodeURIComponent(database)}`;
  return parsed.toString();
}

/** Checked so that it is safe to quote into CREATE DATABASE. */
export function databaseName(databaseUrl: string): string {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, ''));
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) {
    throw new SettingsError(
      `DATABASE_URL must name a database of at most 63 characters matching [a-z_][a-z0-9_]* (got "${name}")`,
    );
  }
  return name;
}

export function hostAndPort(
  serverUrl: string,
  defaultPort: number,
): { host: string; port: number } {
  const parsed = new URL(serverUrl);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1';
  return { host, port: parsed.port ? Number(parsed.port) : defaultPort };
}

/** Only a server on this machine may be started by the launcher in place of a missing one. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export function redact(serverUrl: string): string {
  const parsed = new URL(serverUrl);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

export function natsInstallHelp(natsUrl: string): string {
  return [
    `Nothing answers at ${redact(natsUrl)}, and nats-server is not on PATH, so the launcher cannot start one.`,
    'Either:',
    '  - install it (Debian/Ubuntu: sudo apt-get install nats-server),',
    '  - or download a release from https://github.com/nats-io/nats-server/releases and put nats-server on PATH,',
    '  - or set NATS_URL to a running NATS server that has JetStream enabled (nats-server -js).',
  ].join('\n');
}

/** Undefined when the gateway has credentials configured: it then ignores AUTH_DEV_TOKEN, so a printed one would not work. */
export function developmentToken(env: NodeJS.ProcessEnv, fresh: () => string): string | undefined {
  const keys = env.AUTH_API_KEYS?.trim();
  if ((keys && !/^\[\s*\]$/.test(keys)) || env.AUTH_JWT_ISSUER?.trim()) return undefined;
  return env.AUTH_DEV_TOKEN || fresh();
}
