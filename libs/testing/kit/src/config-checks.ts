import { ConfigError, loadConfig } from '@rollout/platform/config';
import type { z } from 'zod';

/** '' when it loads. */
export function configProblems(schema: z.ZodType, env: Record<string, string>): string {
  try {
    loadConfig(schema, env);
    return '';
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
}

/** `production` is what else the service needs to load in production. */
export function describePostgresTlsInProduction(
  service: string,
  schema: z.ZodType,
  production: Record<string, string> = {},
): void {
  describe(`${service} config: TLS to Postgres`, () => {
    it("is refused in production unless the server's certificate is verified", () => {
      const verified = { ...production, NODE_ENV: 'production', DATABASE_SSL_MODE: 'verify-full' };
      expect(configProblems(schema, { ...verified, DATABASE_SSL_MODE: 'require' })).toContain(
        'DATABASE_SSL_MODE must be verify-full or verify-ca in production',
      );
      expect(
        configProblems(schema, {
          ...verified,
          DATABASE_URL: 'postgres://app@db:5432/app?sslmode=disable',
        }),
      ).toContain('DATABASE_URL must not set sslmode in production');
      expect(configProblems(schema, verified)).toBe('');
      expect(configProblems(schema, { NODE_ENV: 'development' })).toBe('');
    });
  });
}
