import { z } from 'zod';
import { baseConfigSchema, checkDatabaseTls, databaseConfigSchema } from './base-config';
import { ConfigError, loadConfig } from './load-config';

const schema = z.object({
  ...baseConfigSchema(3001).shape,
  ...databaseConfigSchema('experiment').shape,
});

describe('loadConfig', () => {
  it('gives working defaults for an empty environment', () => {
    const config = loadConfig(schema, {});
    expect(config).toMatchObject({
      PORT: 3001,
      HOST: '0.0.0.0',
      NATS_URL: ['nats://127.0.0.1:4222'],
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/policy_rollout',
      DATABASE_SCHEMA: 'experiment',
      DATABASE_SSL_MODE: 'disable',
      LOG_LEVEL: 'info',
    });
  });

  it('takes TLS to Postgres in the modes a service can honour', () => {
    const config = loadConfig(schema, {
      DATABASE_SSL_MODE: 'verify-full',
      DATABASE_SSL_ROOT_CERT: '/etc/postgres-tls/ca.crt',
    });
    expect([config.DATABASE_SSL_MODE, config.DATABASE_SSL_ROOT_CERT]).toEqual([
      'verify-full',
      '/etc/postgres-tls/ca.crt',
    ]);
    // libpq's prefer would fall back to plain TCP without a word: not a mode we offer.
    expect(() => loadConfig(schema, { DATABASE_SSL_MODE: 'prefer' })).toThrow(
      'invalid configuration: DATABASE_SSL_MODE must be disable, require, verify-ca or verify-full (got "prefer")',
    );
  });

  it('reads a cluster of NATS servers from a comma-separated list', () => {
    const config = loadConfig(schema, { NATS_URL: 'nats://a:4222, tls://b:4222' });
    expect(config.NATS_URL).toEqual(['nats://a:4222', 'tls://b:4222']);
  });

  it('names the variable, the problem and the value in one line', () => {
    expect(() => loadConfig(schema, { NATS_URL: 'notaurl' })).toThrow(
      'invalid configuration: NATS_URL must be a URL like nats://127.0.0.1:4222 (got "notaurl")',
    );
  });

  it('reports every bad variable at once', () => {
    let error: unknown;
    try {
      loadConfig(schema, { PORT: '99999', DATABASE_SCHEMA: 'Robert"); DROP', LOG_LEVEL: 'loud' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(3);
    expect(problems.join('\n')).toMatch(
      /^PORT must be a port between 0 and 65535 \(got "99999"\)$/m,
    );
    expect(problems.join('\n')).toMatch(/^DATABASE_SCHEMA must be a lower-case SQL identifier/m);
    expect(problems.join('\n')).toMatch(/^LOG_LEVEL must be one of fatal, error/m);
    expect((error as Error).message).not.toContain('\n');
  });

  it('never echoes a secret', () => {
    expect(() => loadConfig(schema, { NATS_PASSWORD: ' ', DATABASE_URL: 'mysql://x' })).not.toThrow(
      / \(got " "\)/,
    );
    const bad = z.object({ NATS_TOKEN: z.string().min(10, 'must be at least 10 characters') });
    expect(() => loadConfig(bad, { NATS_TOKEN: 's3cret' })).toThrow(
      'NATS_TOKEN must be at least 10 characters (value hidden)',
    );
  });

  it('treats empty strings as unset', () => {
    const config = loadConfig(schema, { PORT: '', NATS_NAMESPACE: '' });
    expect(config.PORT).toBe(3001);
    expect(config.NATS_NAMESPACE).toBeUndefined();
  });

  it('never echoes the password of a URL', () => {
    expect(() =>
      loadConfig(schema, { DATABASE_URL: 'mysql://app:hunter2-secret@db:3306/app' }),
    ).toThrow(/DATABASE_URL .* \(got "mysql:\/\/app:\*\*\*@db:3306\/app"\)/);
    expect(() =>
      loadConfig(schema, { DATABASE_URL: 'mysql://app:hunter2-secret@db:3306/app' }),
    ).not.toThrow(/hunter2/);
  });
});

describe('TLS to Postgres in production', () => {
  // As every service with a database declares its config.
  const service = schema.superRefine(checkDatabaseTls);
  const production = { NODE_ENV: 'production', DATABASE_URL: 'postgres://app@db:5432/app' };
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig(service, env);
      return '';
    } catch (error) {
      return (error as ConfigError).message;
    }
  };

  it("refuses every mode that does not verify the server's certificate", () => {
    for (const mode of ['disable', 'require'])
      expect(problems({ ...production, DATABASE_SSL_MODE: mode })).toContain(
        `DATABASE_SSL_MODE must be verify-full or verify-ca in production (TLS with the server's certificate verified) (got "${mode}")`,
      );
    // Unset is disable.
    expect(problems(production)).toContain('DATABASE_SSL_MODE must be verify-full or verify-ca');
    for (const mode of ['verify-full', 'verify-ca'])
      expect(problems({ ...production, DATABASE_SSL_MODE: mode })).toBe('');
  });

  it('refuses a URL that would set TLS itself, over DATABASE_SSL_MODE', () => {
    for (const query of [
      'sslmode=disable',
      'ssl=0',
      'sslmode=no-verify',
      'sslrootcert=/x&sslmode=require',
    ])
      expect(
        problems({
          ...production,
          DATABASE_SSL_MODE: 'verify-full',
          DATABASE_URL: `postgres://app:secret-pw@db:5432/app?${query}`,
        }),
      ).toMatch(/DATABASE_URL must not set ssl[\w, ]* in production: TLS is DATABASE_SSL_MODE's/);
    expect(
      problems({
        ...production,
        DATABASE_SSL_MODE: 'verify-full',
        DATABASE_URL: 'postgres://app:secret-pw@db:5432/app?sslmode=disable',
      }),
    ).not.toContain('secret-pw');
    expect(
      problems({
        ...production,
        DATABASE_SSL_MODE: 'verify-full',
        DATABASE_URL: 'postgres://app@db:5432/app?application_name=x',
      }),
    ).toBe('');
  });

  it('leaves development and tests as they are', () => {
    expect(
      problems({ NODE_ENV: 'development', DATABASE_URL: 'postgres://app@db/app?sslmode=disable' }),
    ).toBe('');
    expect(problems({ NODE_ENV: 'test' })).toBe('');
  });
});
