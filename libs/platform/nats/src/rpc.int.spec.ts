import { Controller, INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, MessagePattern, NatsContext, Payload } from '@nestjs/microservices';
import {
  CONTRACT_HEADERS,
  EXPERIMENT_SUBJECTS,
  EXPERIMENT_V1,
  StatusError,
} from '@rollout/contracts';
import { ErrorFilter } from '@rollout/platform/errors';
import { TEST_NATS_URL, uniqueName } from '@rollout/testing/kit';
import type { NatsConnection } from 'nats';
import { NatsModule } from './nats.module';
import { NatsNamespace } from './namespace';
import { NatsRpcClient } from './rpc-client';
import { NatsRpcServer } from './rpc-server';
import { NATS_CONNECTION } from './tokens';

const namespace = uniqueName();

@Controller()
class EchoController {
  static handled = 0;

  @MessagePattern('echo.v1.say')
  say(@Payload() data: { text: string }) {
    EchoController.handled += 1;
    return { text: data.text };
  }

  @MessagePattern('echo.v1.fail')
  fail(@Payload() data: { kind: 'known' | 'bug' }) {
    if (data.kind === 'known')
      throw StatusError.withReason('ABORTED', 'etag mismatch', 'ETAG_MISMATCH');
    throw new Error('SELECT * FROM secrets failed');
  }

  /** What identified the caller: the headers a service sees. */
  @MessagePattern(['echo.v1.headers', EXPERIMENT_SUBJECTS.getOperation])
  headers(@Ctx() context: NatsContext) {
    const headers = context.getHeaders() as { get(name: string): string } | undefined;
    return Object.fromEntries(
      Object.values(CONTRACT_HEADERS).map((name) => [name, headers?.get(name) || null]),
    );
  }

  /** An answer of `bytes` characters. */
  @MessagePattern('echo.v1.big')
  big(@Payload() data: { bytes: number }) {
    return { text: 'x'.repeat(data.bytes) };
  }

  @MessagePattern('echo.v1.slow')
  async slow() {
    await new Promise((r) => setTimeout(r, 1_000));
    return { late: true };
  }
}

async function serve(name: string, controllers: (new () => unknown)[]): Promise<INestApplication> {
  @Module({
    imports: [NatsModule.forRoot({ name, version: '0.9.1', servers: [TEST_NATS_URL], namespace })],
    controllers,
  })
  class TestModule {}
  const app = await NestFactory.create(TestModule, { logger: false });
  app.useGlobalFilters(new ErrorFilter());
  app.connectMicroservice(
    {
      strategy: new NatsRpcServer(app.get(NATS_CONNECTION), {
        queue: name,
        namespace: app.get(NatsNamespace),
      }),
    },
    { inheritAppConfig: true },
  );
  await app.startAllMicroservices();
  await app.init();
  return app;
}

function failure(promise: Promise<unknown>): Promise<StatusError> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: StatusError) => error,
  );
}

describe('NATS request/reply between services', () => {
  let server: INestApplication;
  let client: INestApplication;
  let rpc: NatsRpcClient;

  beforeAll(async () => {
    server = await serve('echo-service', [EchoController]);
    client = await serve('gateway', []);
    rpc = client.get(NatsRpcClient);
  });

  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('answers a request', async () => {
    await expect(rpc.request('echo.v1.say', { text: 'hi' }, { timeoutMs: 2_000 })).resolves.toEqual(
      { text: 'hi' },
    );
  });

  it('says who is calling: User-Agent always, Contract-Version for a subject of a contract package, Client-Features when given', async () => {
    await expect(rpc.request('echo.v1.headers', {}, { timeoutMs: 2_000 })).resolves.toEqual({
      'Contract-Version': null,
      'User-Agent': 'gateway/0.9.1',
      'Client-Features': null,
    });
    await expect(
      rpc.request(
        EXPERIMENT_SUBJECTS.getOperation,
        {},
        { timeoutMs: 2_000, features: ['com.acme.a', 'com.acme.b'] },
      ),
    ).resolves.toEqual({
      'Contract-Version': `experiment.v1/${EXPERIMENT_V1.version}`,
      'User-Agent': 'gateway/0.9.1',
      'Client-Features': 'com.acme.a, com.acme.b',
    });
  });

  it('delivers a service error as the same Status', async () => {
    const error = await failure(
      rpc.request('echo.v1.fail', { kind: 'known' }, { timeoutMs: 2_000 }),
    );
    expect(error).toBeInstanceOf(StatusError);
    expect(error.toStatus()).toMatchObject({
      code: 409,
      status: 'ABORTED',
      message: 'etag mismatch',
    });
  });

  it('turns a bug in a service into INTERNAL with an error id, leaking nothing', async () => {
    const error = await failure(rpc.request('echo.v1.fail', { kind: 'bug' }, { timeoutMs: 2_000 }));
    expect(error.status).toBe('INTERNAL');
    expect(error.message).toMatch(/error id [0-9a-f-]{36}/);
    expect(error.message).not.toContain('secrets');
  });

  it('says an answer is larger than the bus carries (RESOURCE_EXHAUSTED), rather than leave the caller to time out', async () => {
    const error = await failure(
      rpc.request('echo.v1.big', { bytes: 2 * 1024 * 1024 }, { timeoutMs: 30_000 }),
    );
    expect(error.toStatus()).toMatchObject({ status: 'RESOURCE_EXHAUSTED' });
    expect(error.message).toContain('smaller page');
    // The service still answers.
    await expect(
      rpc.request('echo.v1.say', { text: 'still here' }, { timeoutMs: 2_000 }),
    ).resolves.toEqual({
      text: 'still here',
    });
  });

  it('is UNAVAILABLE at once when nobody serves the subject', async () => {
    const started = Date.now();
    const error = await failure(rpc.request('nobody.v1.home', {}, { timeoutMs: 5_000 }));
    expect(error.toStatus()).toMatchObject({ code: 503, status: 'UNAVAILABLE' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('is DEADLINE_EXCEEDED when the service is too slow', async () => {
    const error = await failure(rpc.request('echo.v1.slow', {}, { timeoutMs: 200 }));
    expect(error.toStatus()).toMatchObject({ code: 504, status: 'DEADLINE_EXCEEDED' });
  });

  it('shares requests between replicas of one service (queue group), each handled once', async () => {
    const replica = await serve('echo-service', [EchoController]);
    const before = EchoController.handled;
    try {
      const replies = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          rpc.request<{ text: string }>('echo.v1.say', { text: `${i}` }, { timeoutMs: 2_000 }),
        ),
      );
      expect(replies.map((r) => r.text)).toEqual(Array.from({ length: 40 }, (_, i) => `${i}`));
      expect(EchoController.handled - before).toBe(40);
      const received = (app: INestApplication) =>
        app.get<NatsConnection>(NATS_CONNECTION).stats().inMsgs;
      expect(received(replica)).toBeGreaterThan(0);
      expect(received(server)).toBeGreaterThan(0);
    } finally {
      await replica.close();
    }
  });

  it('keeps answering in-flight requests while a replica drains, then stops serving', async () => {
    const pending = rpc.request('echo.v1.slow', {}, { timeoutMs: 3_000 });
    await new Promise((r) => setTimeout(r, 100));
    const closing = server.close();
    await expect(pending).resolves.toEqual({ late: true });
    await closing;
    const error = await failure(rpc.request('echo.v1.say', { text: 'x' }, { timeoutMs: 1_000 }));
    expect(error.status).toBe('UNAVAILABLE');
  });
});
