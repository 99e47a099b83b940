import { SettingsError, databaseName, readSettings, withDatabase } from './settings';

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
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/policy_rollout',
      readyTimeoutMs: 60_000,
      stopTimeoutMs: 15_000,
    });
  });

  it('names the variable of a bad value', () => {
    expect(() => readSettings({ GATEWAY_PORT: '80a' })).toThrow(
      new SettingsError('GATEWAY_PORT must be an integer from 1 to 65535 (got "80a")'),
    );
    expect(() => readSettings({ NATS_URL: 'localhost:4222' })).toThrow(/^NATS_URL must be a URL like nats:/);
    expect(() => readSettings({ DATABASE_URL: 'mysql://x/y' })).toThrow(/^DATABASE_URL must be a URL like postgres:/);
  });

  it('reaches the same server through another database', () => {
    expect(withDatabase('postgres://u:p@db:5433/app?sslmode=require', 'postgres')).toBe(
      'postgres://u:p@db:5433/postgres?sslmode=require',
    );
  });

  it('only accepts database names that are safe to quote into CREATE DATABASE', () => {
    expect(databaseName('postgres://h/policy_rollout')).toBe('policy_rollout');
    expect(() => databaseName('postgres://h/x%22%3B%20DROP')).toThrow(SettingsError);
  });
});
