import { loadConfig } from '@rollout/platform/config';
import { generateBusKeyPair } from '@rollout/platform/bus-security';
import { configProblems } from '@rollout/testing/kit';
import { configSchema } from './config';

const PRODUCTION = {
  NODE_ENV: 'production',
  AUTH_API_KEYS: JSON.stringify([
    { name: 'ops', sha256: 'a'.repeat(64), roles: ['admin'], projects: '*' },
  ]),
  PAGE_TOKEN_SECRET: 'page-secret',
};
const problems = (env: Record<string, string>) => configProblems(configSchema, env);

describe('gateway config: the actor assertion key', () => {
  it('is required in production, and taken in its <key id>:<seed> form', () => {
    expect(problems(PRODUCTION)).toContain('BUS_SIGNING_KEY must be set in production');
    expect(
      problems({ ...PRODUCTION, BUS_SIGNING_KEY: generateBusKeyPair('2025-07').signingKey }),
    ).toBe('');
    expect(problems({ ...PRODUCTION, BUS_SIGNING_KEY: 'not-a-key' })).toContain(
      'BUS_SIGNING_KEY must be <key id>:<32-byte Ed25519 seed, base64url> (value hidden)',
    );
  });

  it('signs assertions that outlive an RPC call, and no longer than services accept', () => {
    expect(problems({ RPC_TIMEOUT_MS: '5000', BUS_ASSERTION_TTL_MS: '5000' })).toContain(
      'BUS_ASSERTION_TTL_MS must be longer than RPC_TIMEOUT_MS',
    );
    expect(problems({ BUS_ASSERTION_TTL_MS: '120000' })).toContain(
      'BUS_ASSERTION_TTL_MS must be at most 60000',
    );
    expect(loadConfig(configSchema, {}).BUS_ASSERTION_TTL_MS).toBeUndefined();
  });
});
