import { INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  CONTRACT_HEADERS,
  EXPERIMENT_V1,
  START_TIME_FEATURE,
  SYSTEM_V1,
  ServiceInfo,
  StatusError,
  serviceInfoSubject,
} from '@rollout/contracts';
import { LoggingModule } from '@rollout/platform/logging';
import { MetricsModule } from '@rollout/platform/metrics';
import { NatsModule, NatsRpcClient } from '@rollout/platform/nats';
import { TEST_NATS_URL, uniqueName } from '@rollout/testing/kit';
import { JSONCodec, NatsConnection, connect } from 'nats';
import type { AddressInfo } from 'node:net';
import { startServiceApp } from './run-service';
import { ServiceInfoModule } from './service-info';

/**
 * The server side of client identity, over real NATS: a service (ServiceInfoModule, as every
 * service has) counts its callers by client and contract at /metrics, sends the start-time
 * feature only to callers that declared it, and refuses a major it does not serve.
 */
const namespace = uniqueName();
const subject = serviceInfoSubject('experiment-service');
let service: INestApplication;
let caller: INestApplication;
let rpc: NatsRpcClient;
let nc: NatsConnection;
let metricsUrl: string;

/** The value of one sample of a counter, 0 when it has none with these labels. */
async function sample(name: string, labels: Record<string, string>): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith(`${name}{`) &&
        Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)),
    );
  return line ? Number(line.split(' ').at(-1)) : 0;
}

beforeAll(async () => {
  @Module({
    imports: [
      LoggingModule.forRoot({ service: 'experiment-service', level: 'silent' }),
      MetricsModule.forRoot({ service: 'experiment-service' }),
      NatsModule.forRoot({ name: 'experiment-service', servers: [TEST_NATS_URL], namespace }),
      ServiceInfoModule.forService('experiment-service', [SYSTEM_V1, EXPERIMENT_V1]),
    ],
  })
  class ServiceModule {}
  service = await startServiceApp({
    name: 'experiment-service',
    config: { PORT: 0, HOST: '127.0.0.1' },
    module: ServiceModule,
    rpc: true,
  });
  metricsUrl = `http://127.0.0.1:${(service.getHttpServer().address() as AddressInfo).port}/metrics`;

  @Module({
    imports: [
      NatsModule.forRoot({
        name: 'gateway',
        version: '1.2.3',
        servers: [TEST_NATS_URL],
        namespace,
      }),
    ],
  })
  class CallerModule {}
  caller = await NestFactory.create(CallerModule, { logger: false });
  await caller.init();
  rpc = caller.get(NatsRpcClient);
  nc = await connect({ servers: TEST_NATS_URL });
});

afterAll(async () => {
  await caller?.close();
  await service?.close();
  await nc?.close();
});

describe('a service and its callers', () => {
  it('counts calls by client and by the contract package the client derived from the subject', async () => {
    const before = await sample('contract_client_requests_total', {
      transport: 'nats',
      client: 'gateway',
      contract: 'system.v1',
    });
    const info = await rpc.request<ServiceInfo>(subject, {}, { timeoutMs: 5_000 });
    expect(info.contracts).toContainEqual({
      name: 'system.v1',
      version: SYSTEM_V1.version,
      features: [START_TIME_FEATURE],
    });
    expect(
      await sample('contract_client_requests_total', {
        transport: 'nats',
        client: 'gateway',
        contract: 'system.v1',
      }),
    ).toBe(before + 1);
  });

  it('sends startTime only to a client that declared the start-time feature', async () => {
    const plain = await rpc.request<ServiceInfo>(subject, {}, { timeoutMs: 5_000 });
    expect(plain.startTime).toBeUndefined();
    const declared = await rpc.request<ServiceInfo>(
      subject,
      {},
      { timeoutMs: 5_000, features: [START_TIME_FEATURE, 'com.acme.unknown'] },
    );
    expect(Date.parse(declared.startTime ?? '')).toBeLessThanOrEqual(Date.now());
    expect(
      await sample('contract_client_features_total', {
        client: 'gateway',
        feature: START_TIME_FEATURE,
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(await sample('contract_client_features_total', { feature: 'com.acme.unknown' })).toBe(0);
  });

  it('refuses a major it does not serve with FAILED_PRECONDITION naming the served one', async () => {
    const refused = await rpc
      .request(
        subject,
        {},
        {
          timeoutMs: 5_000,
          headers: { [CONTRACT_HEADERS.contractVersion]: 'system.v2alpha/2.0.0-alpha.1' },
        },
      )
      .then(
        () => undefined,
        (e: StatusError) => e,
      );
    expect(refused?.toStatus()).toMatchObject({ code: 400, status: 'FAILED_PRECONDITION' });
    expect(refused?.message).toContain('system.v1');
    expect(JSON.stringify(refused?.toStatus().details)).toContain('CONTRACT_MAJOR_NOT_SERVED');
  });

  it('serves an older client that sends no identity headers, counted as unknown', async () => {
    const before = await sample('contract_client_requests_total', {
      transport: 'nats',
      client: 'unknown',
      contract: 'none',
    });
    const codec = JSONCodec();
    const reply = await nc.request(
      `${namespace}.${subject}`,
      codec.encode({ pattern: subject, data: {}, id: '1' }),
      { timeout: 5_000 },
    );
    expect((codec.decode(reply.data) as { response: ServiceInfo }).response.name).toBe(
      'experiment-service',
    );
    expect(
      await sample('contract_client_requests_total', {
        transport: 'nats',
        client: 'unknown',
        contract: 'none',
      }),
    ).toBe(before + 1);
  });

  it('counts and times every request by transport, operation and outcome', async () => {
    const nats = { transport: 'nats', operation: `${namespace}.${subject}` };
    const [ok, failed] = [
      await sample('server_requests_total', { ...nats, outcome: 'ok' }),
      await sample('server_requests_total', { ...nats, outcome: 'error' }),
    ];
    await rpc.request(subject, {}, { timeoutMs: 5_000 });
    await rpc
      .request(
        subject,
        {},
        { timeoutMs: 5_000, headers: { [CONTRACT_HEADERS.contractVersion]: 'system.v9/9.0.0' } },
      )
      .catch(() => undefined);
    expect(await sample('server_requests_total', { ...nats, outcome: 'ok' })).toBe(ok + 1);
    expect(await sample('server_requests_total', { ...nats, outcome: 'error' })).toBe(failed + 1);
    expect(await sample('server_request_duration_seconds_count', { ...nats, outcome: 'ok' })).toBe(
      ok + 1,
    );

    const http = { transport: 'http', operation: 'GET /metrics', outcome: '200' };
    const scrapes = await sample('server_requests_total', http);
    expect(await sample('server_requests_total', http)).toBe(scrapes + 1);
    await fetch(metricsUrl.replace('/metrics', '/no-such-route'));
    expect(
      await sample('server_requests_total', {
        transport: 'http',
        operation: 'GET unmatched',
        outcome: '404',
      }),
    ).toBe(1);
  });
});
