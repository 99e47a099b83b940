import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@rollout/config';
import { TrafficEvent, trafficSubject } from '@rollout/contracts';
import { NatsNamespace } from '@rollout/nats';
import { startServiceApp } from '@rollout/service-kit';
import {
  ServiceProcess,
  TEST_NATS_URL,
  eventually,
  removeTestResources,
  startServiceProcess,
  uniqueName,
  JsonBody,
} from '@rollout/testing';
import { NatsConnection, connect } from 'nats';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { configSchema } from '../config';
import { gatewayApp } from '../gateway-app';

/**
 * Backtesting through the gateway: the gateway in-process, the experiment-service and the
 * evaluator from their own main.ts in child processes, on one NATS namespace, each with its own
 * Postgres schema; `:backtest` answers an operation that `GET /v1/operations/{id}` follows.
 */
const namespace = uniqueName();
const ns = new NatsNamespace(namespace);
const schemas = { experiment: uniqueName('it_'), preview: uniqueName('it_') };
const TOKEN = 'backtest-test-token';
const OTHER_TEAM_TOKEN = 'backtest-other-team-token';
const digest = (token: string) => createHash('sha256').update(token).digest('hex');
const API_KEYS = JSON.stringify([
  { name: 'test-admin', sha256: digest(TOKEN), roles: ['admin'], projects: '*' },
  { name: 'other-team', sha256: digest(OTHER_TEAM_TOKEN), roles: ['editor'], projects: ['other'] },
]);
const P = '/v1/projects/acme/locations/global/firewallPolicies';

let gateway: INestApplication;
let services: ServiceProcess[] = [];
let base: string;
let nc: NatsConnection;

async function call(
  method: string,
  path: string,
  body?: unknown,
  token = TOKEN,
): Promise<{ status: number; body: JsonBody }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

let n = 0;
const event = (srcIp: string, destPort = 22): TrafficEvent => ({
  id: `${namespace}-${n++}`,
  time: new Date(Date.UTC(2025, 5, 1, 12, 0, n)).toISOString(),
  direction: 'INGRESS',
  srcIp,
  destIp: '192.0.2.1',
  protocol: 'tcp',
  destPort,
});

describe('backtesting an experiment through the gateway', () => {
  beforeAll(async () => {
    const common = {
      NATS_URL: TEST_NATS_URL,
      NATS_NAMESPACE: namespace,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
    };
    services = [
      startServiceProcess('experiment-service', {
        NATS_NAMESPACE: namespace,
        DATABASE_SCHEMA: schemas.experiment,
      }),
      startServiceProcess('evaluator', {
        NATS_NAMESPACE: namespace,
        DATABASE_SCHEMA: schemas.preview,
        TRAFFIC_MAX_BYTES: String(64 * 1024 ** 2),
        PREVIEW_LOGS_MAX_BYTES: String(64 * 1024 ** 2),
      }),
    ];
    const config = loadConfig(configSchema, {
      ...common,
      AUTH_API_KEYS: API_KEYS,
      RATE_LIMIT_PER_SECOND: '10000',
      RATE_LIMIT_BURST: '10000',
      RPC_TIMEOUT_MS: '10000',
    });
    gateway = await startServiceApp(gatewayApp(config));
    base = `http://127.0.0.1:${(gateway.getHttpServer().address() as AddressInfo).port}`;
    for (const service of ['experiment-service', 'evaluator']) {
      await eventually(
        async () =>
          (await call('GET', `/v1/services/${service}`)).status === 200 ? true : undefined,
        { timeoutMs: 40_000, intervalMs: 200, what: `${service} serving` },
      );
    }
    nc = await connect({ servers: TEST_NATS_URL });
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await Promise.all(services.map((s) => s.stop()));
    await nc?.close();
    await removeTestResources({ schema: schemas.experiment, namespace });
    await removeTestResources({ schema: schemas.preview });
  });

  const experiment = `${P}/edge/experiments/block-ssh`;
  const allowSsh = {
    priority: 100,
    direction: 'INGRESS',
    action: 'allow',
    match: { srcIpRanges: ['10.0.0.0/8'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] },
  };
  const denyNet = {
    priority: 10,
    direction: 'INGRESS',
    action: 'deny',
    match: { srcIpRanges: ['10.0.1.0/24'] },
  };

  /** Follows a backtest's operation until it is done. */
  const done = (name: string) =>
    eventually(
      async () => {
        const { status, body } = await call('GET', `/v1/${name}`);
        expect(status).toBe(200);
        return body.done ? body : undefined;
      },
      { timeoutMs: 20_000, what: `${name} done` },
    );

  beforeAll(async () => {
    expect((await call('POST', `${P}?firewallPolicyId=edge`, { rules: [allowSsh] })).status).toBe(
      200,
    );
    expect(
      (
        await call('POST', `${P}/edge/experiments?experimentId=block-ssh`, {
          firewallPolicy: { rules: [denyNet, allowSsh] },
        })
      ).status,
    ).toBe(200);
    const js = nc.jetstream();
    // Three ssh connections from 10.0.1.0/24 (the experiment denies them), two from elsewhere (allowed by both).
    for (const e of [
      event('10.0.1.1'),
      event('10.0.1.1'),
      event('10.0.1.7'),
      event('10.0.2.1'),
      event('10.0.3.1'),
    ]) {
      await js.publish(ns.subject(trafficSubject('acme', 'global', 'edge')), JSON.stringify(e), {
        msgID: e.id,
      });
    }
  });

  it('backtests an experiment that was never previewed, and its result is the operation response', async () => {
    const started = await eventually(
      async () => {
        const answer = await call('POST', `${experiment}:backtest`);
        return answer.status === 200 ? answer.body : undefined;
      },
      { what: 'the evaluator holding the experiment' },
    );
    expect(started).toMatchObject({
      name: expect.stringMatching(/^operations\/backtest-[0-9a-f-]{36}$/),
      done: false,
      metadata: { verb: 'backtest', target: experiment.slice(4) },
    });

    const { response, metadata } = await done(started.name);
    expect(metadata).toMatchObject({ messagesReplayed: 5, eventsReplayed: 5 });
    expect(response['@type']).toBe('type.googleapis.com/policyrollout.preview.v1.BacktestResult');
    expect(response.report.configurations).toHaveLength(1);
    expect(response.report.configurations[0]).toMatchObject({
      evaluated: 5,
      changed: 3,
      allowToDeny: 3,
      unchangedAllow: 2,
      flows: 2,
      topChangedSources: [
        { srcIp: '10.0.1.1', count: 2 },
        { srcIp: '10.0.1.7', count: 1 },
      ],
    });
    expect(response.window).toMatchObject({
      messagesReplayed: 5,
      skippedMessages: 0,
      startsBeforeRetention: false,
      retainedStartSequence: 1,
    });
    // The live preview never ran: its report is as empty as before.
    expect((await call('GET', `${experiment}/previewReport`)).body.configurations).toEqual([]);
  });

  it('takes a window, and says when it starts before what TRAFFIC retains', async () => {
    const started = await call('POST', `${experiment}:backtest`, {
      startTime: '2001-01-01T00:00:00Z',
    });
    expect(started.status).toBe(200);
    const { response } = await done(started.body.name);
    expect(response.window).toMatchObject({
      requestedStartTime: '2001-01-01T00:00:00.000Z',
      startsBeforeRetention: true,
      eventsReplayed: 5,
    });
    expect(response.window.summary).toContain('before the oldest message TRAFFIC still retains');
  });

  it('refuses a bad window, an unknown or committed experiment, and hides another team’s backtests', async () => {
    expect((await call('POST', `${experiment}:backtest`, { startTime: 'soon' })).status).toBe(400);
    const backwards = await call('POST', `${experiment}:backtest`, {
      startTime: '2025-06-02T00:00:00Z',
      endTime: '2025-06-01T00:00:00Z',
    });
    expect([backwards.status, backwards.body.error.status, backwards.body.error.message]).toEqual([
      400,
      'INVALID_ARGUMENT',
      'endTime is before startTime.',
    ]);
    expect((await call('POST', `${P}/edge/experiments/nothing:backtest`)).body.error.status).toBe(
      'NOT_FOUND',
    );

    const started = (await call('POST', `${experiment}:backtest`)).body;
    expect((await call('POST', `${experiment}:backtest`, undefined, OTHER_TEAM_TOKEN)).status).toBe(
      404,
    );
    expect((await call('GET', `/v1/${started.name}`, undefined, OTHER_TEAM_TOKEN)).status).toBe(
      404,
    );
    expect(
      (await call('GET', '/v1/operations/backtest-00000000-0000-0000-0000-000000000000')).status,
    ).toBe(404);

    const current = (await call('GET', experiment)).body;
    expect((await call('POST', `${experiment}:commit`, { etag: current.etag })).status).toBe(200);
    const committed = await eventually(
      async () => {
        const answer = await call('POST', `${experiment}:backtest`);
        return answer.status === 404 ? answer.body : undefined;
      },
      { what: 'the evaluator seeing the commit' },
    );
    expect(committed.error.message).toContain(
      'not found (a committed or deleted experiment has nothing to backtest)',
    );
    // What was started before the commit still finishes.
    expect((await done(started.name)).response.report.configurations[0].evaluated).toBe(5);
  });
});
