import { ConfigError, loadConfig } from '@rollout/platform/config';
import { configSchema } from './config';

const problems = (env: Record<string, string>) => {
  try {
    loadConfig(configSchema, env);
    return '';
  } catch (error) {
    return (error as ConfigError).message;
  }
};

describe('enforcement-service config: TLS to Postgres', () => {
  it("is refused in production unless the server's certificate is verified", () => {
    const production = { NODE_ENV: 'production' };
    expect(problems({ ...production, DATABASE_SSL_MODE: 'require' })).toContain(
      'DATABASE_SSL_MODE must be verify-full or verify-ca in production',
    );
    expect(
      problems({
        ...production,
        DATABASE_SSL_MODE: 'verify-full',
        DATABASE_URL: 'postgres://app@db:5432/app?sslmode=disable',
      }),
    ).toContain('DATABASE_URL must not set sslmode in production');
    expect(problems({ ...production, DATABASE_SSL_MODE: 'verify-full' })).toBe('');
    expect(problems({ NODE_ENV: 'development' })).toBe('');
  });
});
