import { Controller, INestApplication, Module } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { EXPERIMENT_SUBJECTS, ACTOR_ASSERTION_HEADER, ASSERTION_IDS_KV } from '@rollout/contracts';
import { LoggingModule } from '@rollout/platform/logging';
import { MetricsModule } from '@rollout/platform/metrics';
import { NatsModule, NatsNamespace } from '@rollout/platform/nats';
import { declareJetStream } from '@rollout/provision';
import {
  ActorAssertionSigner,
  generateBusKeyPair,
  parseBusKey,
} from '@rollout/platform/bus-security';
import { TEST_NATS_URL, uniqueName } from '@rollout/testing/kit';
import { JSONCodec, NatsConnection, connect, headers as natsHeaders } from 'nats';
import { startServiceApp } from './run-service';

/**
 * A captured request replayed to another replica, or to a replica started after a restart: two
 * independent service processes' worth of transport and gate (each its own Nest app, its own
 * NATS connection), sharing only NATS, as replicas of a service do.
 */
const keys = generateBusKeyPair('gw');
const signer = new ActorAssertionSigner(parseBusKey(keys.signingKey)!, 30_000);
const served: string[] = [];

@Controller()
class Previews {
  @MessagePattern(EXPERIMENT_SUBJECTS.stopPreview) stop({ name }: { name: string }) {
    served.push(`stop ${name}`);
    return { name, state: 'STOPPED' };
  }

  @MessagePattern(EXPERIMENT_SUBJECTS.getExperiment) get({ name }: { name: string }) {
    served.push(`get ${name}`);
    return { name };
  }
}

function replicaModule(namespace: string) {
  @Module({
    imports: [
      LoggingModule.forRoot({ service: 'experiment-service', level: 'silent' }),
      MetricsModule.forRoot({ service: 'experiment-service' }),
      NatsModule.forRoot({
        name: 'experiment-service',
        servers: [TEST_NATS_URL],
        namespace,
      }),
    ],
    controllers: [Previews],
  })
  class Replica {}
  return Replica;
}

/** The bucket as the provisioning step declares it (idempotent), then a replica. */
async function startReplica(namespace: string) {
  await declareJetStream(nc, new NatsNamespace(namespace), { kv: [ASSERTION_IDS_KV] });
  return startServiceApp({
    name: 'experiment-service',
    config: { PORT: 0, HOST: '127.0.0.1', BUS_VERIFY_KEYS: [keys.verifyKey] },
    module: replicaModule(namespace),
    rpc: true,
  });
}

interface Reply {
  response?: unknown;
  err?: { code: number; status: string; message: string };
}

/** A request as the gateway sends it: the packet, signed for its subject and bytes. */
function signedRequest(ns: NatsNamespace, subject: string, data: unknown) {
  const sentOn = ns.subject(subject);
  const payload = new TextEncoder().encode(JSON.stringify({ pattern: subject, data, id: '1' }));
  const headers = natsHeaders();
  headers.set(
    ACTOR_ASSERTION_HEADER,
    signer.sign(sentOn, payload, { actor: 'admin', roles: ['admin'], projects: '*' }),
  );
  return { sentOn, payload, headers };
}

async function send(nc: NatsConnection, request: ReturnType<typeof signedRequest>) {
  const reply = await nc.request(request.sentOn, request.payload, {
    headers: request.headers,
    timeout: 5_000,
  });
  return JSONCodec<Reply>().decode(reply.data);
}

let nc: NatsConnection;
const created: string[] = [];
const running: INestApplication[] = [];

beforeAll(async () => {
  nc = await connect({ servers: TEST_NATS_URL });
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((app) => app.close()));
  served.length = 0;
});

afterAll(async () => {
  // Each run's buckets go with it.
  const jsm = await nc.jetstreamManager();
  for (const stream of created) await jsm.streams.delete(stream).catch(() => undefined);
  await nc.close();
});

async function start(namespace: string) {
  const app = await startReplica(namespace);
  running.push(app);
  return app;
}

async function stop(app: INestApplication) {
  running.splice(running.indexOf(app), 1);
  await app.close();
}

it('serves a captured command once: another replica, and a replica after a restart, refuse it', async () => {
  const namespace = uniqueName('replay');
  const ns = new NatsNamespace(namespace);
  created.push(`KV_${ns.bucket(ASSERTION_IDS_KV.bucket)}`);
  const captured = signedRequest(ns, EXPERIMENT_SUBJECTS.stopPreview, { name: 'experiments/e1' });

  // Replica 1 serves the command.
  const first = await start(namespace);
  expect((await send(nc, captured)).err).toBeUndefined();

  // Replica 2 takes over (replica 1 gone): the same bytes, replayed, are refused.
  const second = await start(namespace);
  await stop(first);
  expect((await send(nc, captured)).err).toMatchObject({
    status: 'PERMISSION_DENIED',
    message: "The request's actor assertion was used before.",
  });

  // After a restart (a new process, nothing in memory), still refused.
  await start(namespace);
  await stop(second);
  expect((await send(nc, captured)).err).toMatchObject({ status: 'PERMISSION_DENIED' });

  expect(served).toEqual(['stop experiments/e1']);
  const bucket = await (
    await nc.jetstreamManager()
  ).streams.info(`KV_${ns.bucket(ASSERTION_IDS_KV.bucket)}`);
  expect(bucket.state.messages).toBe(1);
  expect(bucket.config.max_age).toBe(70_000 * 1_000_000);
});

it('refuses a command UNAVAILABLE when its replay check cannot be made, and still serves reads', async () => {
  const namespace = uniqueName('replay');
  const ns = new NatsNamespace(namespace);
  await start(namespace);
  // The bucket is gone (deleted, or its stream has lost its quorum): no one can say whether an id was used.
  await (await nc.jetstreamManager()).streams.delete(`KV_${ns.bucket(ASSERTION_IDS_KV.bucket)}`);

  expect(
    (await send(nc, signedRequest(ns, EXPERIMENT_SUBJECTS.stopPreview, { name: 'experiments/e2' })))
      .err,
  ).toMatchObject({
    status: 'UNAVAILABLE',
    message: expect.stringContaining('its replay check could not be made'),
  });
  expect(
    (
      await send(
        nc,
        signedRequest(ns, EXPERIMENT_SUBJECTS.getExperiment, { name: 'experiments/e2' }),
      )
    ).err,
  ).toBeUndefined();
  expect(served).toEqual(['get experiments/e2']);
});
