import { generateBusKeyPair } from '@rollout/platform/bus-security';
import { configProblems, describePostgresTlsInProduction } from '@rollout/testing/kit';
import { configSchema } from './config';

const PRODUCTION = {
  NODE_ENV: 'production',
  BUS_VERIFY_KEYS: generateBusKeyPair('gw').verifyKey,
  DATABASE_SSL_MODE: 'verify-full',
};
const problems = (env: Record<string, string>) => configProblems(configSchema, env);

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

describePostgresTlsInProduction('evaluator', configSchema, {
  BUS_VERIFY_KEYS: PRODUCTION.BUS_VERIFY_KEYS,
  BUS_SIGNING_KEY: generateBusKeyPair('system.evaluator').signingKey,
});
