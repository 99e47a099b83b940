import { Module } from '@nestjs/common';
import { SYSTEM_V1, serviceInfoSubject } from '@rollout/contracts';
import { LoggingModule } from '@rollout/platform/logging';
import { MetricsModule } from '@rollout/platform/metrics';
import { NatsModule } from '@rollout/platform/nats';
import { TEST_NATS_URL, uniqueName } from '@rollout/testing/kit';
import { JSONCodec, connect } from 'nats';
import { startServiceApp } from './run-service';
import { ServiceInfoModule } from './service-info';

/** How a service's boot treats BUS_VERIFY_KEYS: required in production, checked when given. */
const namespace = uniqueName();

@Module({
  imports: [
    LoggingModule.forRoot({ service: 'evaluator', level: 'silent' }),
    MetricsModule.forRoot({ service: 'evaluator' }),
    NatsModule.forRoot({ name: 'evaluator', servers: [TEST_NATS_URL], namespace }),
    ServiceInfoModule.forService('evaluator', [SYSTEM_V1]),
  ],
})
class ServiceModule {}

const start = (config: Record<string, unknown>) =>
  startServiceApp({
    name: 'evaluator',
    config: { PORT: 0, HOST: '127.0.0.1', ...config },
    module: ServiceModule,
    rpc: true,
  });

it('refuses to start in production without BUS_VERIFY_KEYS', async () => {
  await expect(start({ NODE_ENV: 'production', BUS_VERIFY_KEYS: [] })).rejects.toThrow(
    /BUS_VERIFY_KEYS must be set in production/,
  );
});

it('with BUS_VERIFY_KEYS, answers an unsigned request PERMISSION_DENIED', async () => {
  const service = await start({
    NODE_ENV: 'production',
    BUS_VERIFY_KEYS: [`k1:${'A'.repeat(43)}`],
  });
  const nc = await connect({ servers: TEST_NATS_URL });
  try {
    const subject = `${namespace}.${serviceInfoSubject('evaluator')}`;
    const reply = await nc.request(
      subject,
      JSON.stringify({ pattern: serviceInfoSubject('evaluator'), data: {}, id: '1' }),
      { timeout: 5_000 },
    );
    expect((JSONCodec().decode(reply.data) as { err: { status: string } }).err.status).toBe(
      'PERMISSION_DENIED',
    );
  } finally {
    await nc.close();
    await service.close();
  }
});
