import {
  SettingsError,
  databaseName,
  hostAndPort,
  isLoopback,
  natsInstallHelp,
  developmentToken,
  readSettings,
  redact,
  withDatabase,
} from './settings';

describe('launcher settings', () => {
  it('works with no configuration at all', () => {
    expect(readSettings({})).toEqual({
      ports: {
        gateway: 3000,
        'experiment-service': 3001,
        evaluator: 3002,
        'enforcement-service': 3003,
        'inspection-rules-service': 3004,
      },
      natsUrl: 'nats://127.0.0.1:4222',
      streamReplicas: 1,
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/policy_rollout',
      readyTimeoutMs: 60_000,
      stopTimeoutMs: 15_000,
      logFormat: undefined,
      logDir: 'tmp/logs',
    });
  });

  it('takes every value from its variable, and treats an empty one as unset', () => {
    const settings = readSettings({
      GATEWAY_PORT: '8080',
      EXPERIMENT_SERVICE_PORT: '8081',
      EVALUATOR_PORT: '8082',
      ENFORCEMENT_SERVICE_PORT: '8083',
      INSPECTION_RULES_SERVICE_PORT: '',
      NATS_URL: 'nats://nats.internal:4333',
      NATS_STREAM_REPLICAS: '3',
      DATABASE_URL: 'postgresql://app:secret@db.internal/rollout',
      LAUNCHER_READY_TIMEOUT_MS: '5000',
      LAUNCHER_STOP_TIMEOUT_MS: '250',
      LOG_FORMAT: 'json',
      LAUNCHER_LOG_DIR: '/var/log/rollout',
    });
    expect(settings).toEqual({
      ports: {
        gateway: 8080,
        'experiment-service': 8081,
        evaluator: 8082,
        'enforcement-service': 8083,
        'inspection-rules-service': 3004,
      },
      natsUrl: 'nats://nats.internal:4333',
      streamReplicas: 3,
      databaseUrl: 'postgresql://app:secret@db.internal/rollout',
      readyTimeoutMs: 5000,
      stopTimeoutMs: 250,
      logFormat: 'json',
      logDir: '/var/log/rollout',
    });
  });

  it.each([
    ['GATEWAY_PORT', '80a', 'GATEWAY_PORT must be an integer from 1 to 65535 (got "80a")'],
    ['EVALUATOR_PORT', '0', 'EVALUATOR_PORT must be an integer from 1 to 65535 (got "0")'],
    ['EVALUATOR_PORT', '65536', 'EVALUATOR_PORT must be an integer from 1 to 65535 (got "65536")'],
    [
      'ENFORCEMENT_SERVICE_PORT',
      '3003.5',
      'ENFORCEMENT_SERVICE_PORT must be an integer from 1 to 65535 (got "3003.5")',
    ],
    [
      'INSPECTION_RULES_SERVICE_PORT',
      '-1',
      'INSPECTION_RULES_SERVICE_PORT must be an integer from 1 to 65535 (got "-1")',
    ],
    [
      'EXPERIMENT_SERVICE_PORT',
      '0x10',
      'EXPERIMENT_SERVICE_PORT must be an integer from 1 to 65535 (got "0x10")',
    ],
    [
      'LAUNCHER_READY_TIMEOUT_MS',
      'soon',
      'LAUNCHER_READY_TIMEOUT_MS must be an integer from 1 to 3600000 (got "soon")',
    ],
    [
      'LAUNCHER_STOP_TIMEOUT_MS',
      '0',
      'LAUNCHER_STOP_TIMEOUT_MS must be an integer from 1 to 3600000 (got "0")',
    ],
    ['LOG_FORMAT', 'text', 'LOG_FORMAT must be pretty or json (got "text")'],
    ['NATS_STREAM_REPLICAS', '0', 'NATS_STREAM_REPLICAS must be an integer from 1 to 5 (got "0")'],
    [
      'NATS_URL',
      'localhost:4222',
      'NATS_URL must be a URL like nats://127.0.0.1:4222 (got "localhost:4222")',
    ],
    [
      'NATS_URL',
      'http://127.0.0.1:4222',
      'NATS_URL must be a URL like nats://127.0.0.1:4222 (got "http://127.0.0.1:4222")',
    ],
    [
      'NATS_URL',
      'nats://127.0.0.1:0',
      'NATS_URL must be a URL like nats://127.0.0.1:4222 (got "nats://127.0.0.1:0")',
    ],
    [
      'DATABASE_URL',
      'mysql://x/y',
      'DATABASE_URL must be a URL like postgres://postgres@127.0.0.1:5432/policy_rollout (got "mysql://x/y")',
    ],
    [
      'DATABASE_URL',
      'postgres://127.0.0.1/Rollout',
      'DATABASE_URL must name a database of at most 63 characters matching [a-z_][a-z0-9_]* (got "Rollout")',
    ],
  ])('rejects %s=%s with one line naming the variable', (name, value, message) => {
    expect(() => readSettings({ [name]: value })).toThrow(new SettingsError(message));
  });

  it('rejects two services, or a service and a local NATS or Postgres, on one port', () => {
    expect(() => readSettings({ EVALUATOR_PORT: '3000' })).toThrow(
      new SettingsError('EVALUATOR_PORT uses port 3000, which GATEWAY_PORT uses already'),
    );
    expect(() => readSettings({ GATEWAY_PORT: '4222' })).toThrow(
      new SettingsError('NATS_URL uses port 4222, which GATEWAY_PORT uses already'),
    );
    expect(() => readSettings({ INSPECTION_RULES_SERVICE_PORT: '5432' })).toThrow(
      new SettingsError(
        'DATABASE_URL uses port 5432, which INSPECTION_RULES_SERVICE_PORT uses already',
      ),
    );
    // A server on another machine does not compete for this machine's ports.
    expect(
      readSettings({ GATEWAY_PORT: '4222', NATS_URL: 'nats://nats.internal:4222' }).ports.gateway,
    ).toBe(4222);
  });
});

describe('launcher URL helpers', () => {
  it('reaches the same server, with the same credentials and options, through another database', () => {
    expect(withDatabase('postgres://u:p@db:5433/app?sslmode=require', 'postgres')).toBe(
      'postgres://u:p@db:5433/postgres?sslmode=require',
    );
    expect(withDatabase('postgres://postgres@127.0.0.1:5432/policy_rollout', 'postgres')).toBe(
      'postgres://postgres@127.0.0.1:5432/postgres',
    );
  });

  it('only accepts database names that are safe to quote into CREATE DATABASE', () => {
    expect(databaseName('postgres://h/policy_rollout')).toBe('policy_rollout');
    expect(databaseName('postgres://h/_e2e1x')).toBe('_e2e1x');
    expect(() => databaseName('postgres://h/x%22%3B%20DROP')).toThrow(SettingsError);
    expect(() => databaseName('postgres://h/')).toThrow(SettingsError);
    expect(() => databaseName('postgres://h/1abc')).toThrow(SettingsError);
    expect(() => databaseName(`postgres://h/${'a'.repeat(64)}`)).toThrow(SettingsError);
  });

  it('finds the host and port, with the default port when the URL has none', () => {
    expect(hostAndPort('nats://127.0.0.1:4333', 4222)).toEqual({ host: '127.0.0.1', port: 4333 });
    expect(hostAndPort('nats://localhost', 4222)).toEqual({ host: 'localhost', port: 4222 });
    expect(hostAndPort('postgres://u@[::1]:5433/db', 5432)).toEqual({ host: '::1', port: 5433 });
  });

  it('starts servers only on this machine', () => {
    expect(['127.0.0.1', '127.1.2.3', 'localhost', '::1'].map(isLoopback)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['10.0.0.5', 'db.internal', '0.0.0.0', '127.0.0.1.example.com'].map(isLoopback)).toEqual(
      [false, false, false, false],
    );
  });

  it('never logs a password', () => {
    expect(redact('postgres://app:s3cret@db:5432/rollout')).toBe(
      'postgres://app:***@db:5432/rollout',
    );
    expect(redact('nats://127.0.0.1:4222')).toBe('nats://127.0.0.1:4222');
  });

  it('tells how to get a NATS server', () => {
    const help = natsInstallHelp('nats://u:pw@127.0.0.1:4222');
    expect(help).toContain('sudo apt-get install nats-server');
    expect(help).toContain('https://github.com/nats-io/nats-server/releases');
    expect(help).toContain('NATS_URL');
    expect(help).not.toContain('pw');
  });

  it('gives a development token only while the gateway accepts one: no AUTH_API_KEYS, no AUTH_JWT_ISSUER', () => {
    const fresh = () => 'dev_fresh';
    expect(developmentToken({}, fresh)).toBe('dev_fresh');
    expect(developmentToken({ AUTH_DEV_TOKEN: 'chosen' }, fresh)).toBe('chosen');
    expect(developmentToken({ AUTH_API_KEYS: ' [ ] ', AUTH_DEV_TOKEN: 'chosen' }, fresh)).toBe(
      'chosen',
    );
    expect(
      developmentToken(
        {
          AUTH_API_KEYS: '[{"name":"ops","sha256":"ab","roles":["admin"],"projects":"*"}]',
          AUTH_DEV_TOKEN: 'chosen',
        },
        fresh,
      ),
    ).toBeUndefined();
    expect(
      developmentToken({ AUTH_JWT_ISSUER: 'https://idp.example', AUTH_DEV_TOKEN: 'chosen' }, fresh),
    ).toBeUndefined();
  });
});
