import { ReadinessCheck, runReadinessChecks } from './readiness';

const up = (name: string): ReadinessCheck => ({ name, check: async () => undefined });
const down = (name: string, reason: string): ReadinessCheck => ({
  name,
  check: async () => {
    throw new Error(reason);
  },
});

describe('runReadinessChecks', () => {
  it('is ok when every dependency answers', async () => {
    await expect(runReadinessChecks([up('nats'), up('postgres')], false)).resolves.toEqual({
      status: 'ok',
      checks: { nats: { status: 'up' }, postgres: { status: 'up' } },
    });
  });

  it('names the dependency that is down and why', async () => {
    await expect(
      runReadinessChecks([up('nats'), down('postgres', 'ECONNREFUSED')], false),
    ).resolves.toEqual({
      status: 'unavailable',
      checks: { nats: { status: 'up' }, postgres: { status: 'down', error: 'ECONNREFUSED' } },
    });
  });

  it('is unavailable while the service drains, so no new work is routed to it', async () => {
    const report = await runReadinessChecks([up('nats')], true);
    expect(report.status).toBe('unavailable');
    expect(report.checks.shutdown).toEqual({
      status: 'down',
      error: 'the service is shutting down',
    });
  });
});
