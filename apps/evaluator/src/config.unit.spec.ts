import { ConfigError, loadConfig } from '@rollout/platform/config';
import { generateBusKeyPair } from '@rollout/platform/nats';
import { configSchema } from './config';

const PRODUCTION = {
  NODE_ENV: 'production',
  BUS_VERIFY_KEYS: generateBusKeyPair('gw').verifyKey,
  DATABASE_SSL_MODE: 'verify-full',
};
const problems = (env: Record<string, string>) => {
  try {
    loadConfig(configSchema, env);
    return '';
  } catch (error) {
    return (error as ConfigError).message;
  }
};

describe('evaluator config: its system key for auto-stop', () => {
  it('is required in production', () => {
    expect(problems(PRODUCTION)).toContain('BUS_SIGNING_KEY must be set in production');
    expect(problems({ NODE_ENV: 'development' })).toBe('');
  });

  it('must be a system.evaluator key, which the services let assert only its own stopPreview', () => {
    const system = generateBusKeyPair('system.evaluator.2026').signingKey;
    expect(problems({ ...PRODUCTION, BUS_SIGNING_KEY: system })).toBe('');
    expect(
      problems({ ...PRODUCTION, BUS_SIGNING_KEY: generateBusKeyPair('2025-07').signingKey }),
    ).toContain('key id system.evaluator or system.evaluator.<suffix>');
  });
});

describe('evaluator config: TLS to Postgres', () => {
  it("is refused in production unless the server's certificate is verified", () => {
    const signed = {
      ...PRODUCTION,
      BUS_SIGNING_KEY: generateBusKeyPair('system.evaluator').signingKey,
    };
    expect(problems({ ...signed, DATABASE_SSL_MODE: 'disable' })).toContain(
      'DATABASE_SSL_MODE must be verify-full or verify-ca in production',
    );
    expect(
      problems({ ...signed, DATABASE_URL: 'postgres://preview@db:5432/app?sslmode=disable' }),
    ).toContain('DATABASE_URL must not set sslmode in production');
    expect(problems(signed)).toBe('');
  });
});
