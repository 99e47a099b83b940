import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@rollout/config';
import {
  EXPERIMENT_SUBJECTS,
  ListPreviewFlowsRequest,
  PREVIEW_SUBJECTS,
  PreviewConfigurationReport,
  PreviewFlow,
  PreviewLogRecord,
  Status,
  StatusError,
  TRAFFIC_STREAM,
  TrafficEvent,
  trafficSubject,
} from '@rollout/contracts';
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
import { JSONCodec, NatsConnection, connect } from 'nats';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { configSchema } from '../config';
import { gatewayApp } from '../gateway-app';

/**
 * Previewing through the gateway against real traffic: the gateway in-process, the
 * experiment-service and the evaluator from their own main.ts in child processes (apps never
 * import each other), on one NATS namespace, each with its own Postgres schema. Then what the
 * gateway adds to the evaluator's answers (validation, errors, deleted experiments,
 * deprecation marks), against stand-ins for the two services on the same NATS server.
 */
const namespace = uniqueName();
const ns = new NatsNamespace(namespace);
const schemas = { experiment: uniqueName('it_'), preview: uniqueName('it_') };
const TOKEN = 'preview-test-token';
/** An editor of another team's project only. */
const OTHER_TEAM_TOKEN = 'preview-other-team-token';
const digest = (token: string) => createHash('sha256').update(token).digest('hex');
const API_KEYS = JSON.stringify([
  { name: 'test-admin', sha256: digest(TOKEN), roles: ['admin'], projects: '*' },
  { name: 'other-team', sha256: digest(OTHER_TEAM_TOKEN), roles: ['editor'], projects: ['other'] },
]);
const P = '/v1/projects/acme/locations/global/firewallPolicies';
const SMALL_STREAMS = {
  TRAFFIC_MAX_BYTES: String(64 * 1024 ** 2),
  PREVIEW_LOGS_MAX_BYTES: String(64 * 1024 ** 2),
};

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
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
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

/** Publishes as a traffic producer does; resolves once the evaluator has settled them all. */
async function sendTraffic(policy: string, events: TrafficEvent[]): Promise<void> {
  const js = nc.jetstream();
  let last = 0;
  for (const e of events)
    last = (
      await js.publish(ns.subject(trafficSubject('acme', 'global', policy)), JSON.stringify(e), {
        msgID: e.id,
      })
    ).seq;
  await eventually(
    async () => {
      const info = await (
        await nc.jetstreamManager()
      ).consumers.info(ns.stream(TRAFFIC_STREAM), 'evaluator');
      return info.ack_floor.stream_seq >= last && info.num_ack_pending === 0 ? true : undefined;
    },
    { what: 'traffic settled' },
  );
}

async function allLogs(path: string, changedOnly = false): Promise<PreviewLogRecord[]> {
  const records: PreviewLogRecord[] = [];
  let token = '';
  do {
    const page = await call(
      'GET',
      `${path}/previewLogs?pageSize=4${changedOnly ? '&changedOnly=true' : ''}${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`,
    );
    expect(page.status).toBe(200);
    records.push(...page.body.previewLogs);
    token = page.body.nextPageToken ?? '';
  } while (token);
  return records;
}

describe('previewing an experiment against traffic, through the gateway', () => {
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
        ...SMALL_STREAMS,
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
        {
          timeoutMs: 40_000,
          intervalMs: 200,
          what: `${service} serving`,
        },
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
  });

  it('records nothing before startPreview, then keeps the changed flows and counts every event once it returns', async () => {
    await sendTraffic('edge', [event('10.0.1.1')]);
    expect((await call('GET', `${experiment}/previewLogs`)).body).toEqual({ previewLogs: [] });
    // Since preview.v1 1.6.0 the report also carries readiness (once the evaluator holds the experiment) and a reportEtag.
    expect((await call('GET', `${experiment}/previewReport`)).body).toMatchObject({
      name: 'projects/acme/locations/global/firewallPolicies/edge/experiments/block-ssh',
      configurations: [],
    });

    const started = await call('POST', `${experiment}:startPreview`);
    expect(started.status).toBe(200);
    const etag = started.body.response.etag;
    // The evaluator learns of it from the experiment service's events: a probe shows when.
    await eventually(
      async () => {
        const probe = event('10.0.1.2');
        await sendTraffic('edge', [probe]);
        return (await allLogs(experiment)).some((r) => r.trafficEventId === probe.id)
          ? true
          : undefined;
      },
      { what: 'preview in force' },
    );

    const batch = [
      event('10.0.1.7'),
      event('10.0.1.7'),
      event('10.0.2.7'),
      event('10.0.1.8', 443),
      event('203.0.113.1'),
    ];
    await sendTraffic('edge', batch);
    // Since preview.v1 1.1.0 the changed decisions are kept by flow; the deprecated previewLogs
    // lists the flows' sample records only, and the unchanged decisions are counted, not listed.
    const flows = (
      await call(
        'GET',
        `${experiment}/previewFlows?filter=${encodeURIComponent('srcIp = "10.0.1.7" AND destPort = 22')}`,
      )
    ).body.previewFlows;
    expect(flows).toEqual([
      expect.objectContaining({
        experimentEtag: etag,
        srcIp: '10.0.1.7',
        destPort: 22,
        transition: 'ALLOW_TO_DENY',
        liveResult: { action: 'allow', rulePriority: 100, implied: false },
        experimentResult: { action: 'deny', rulePriority: 10, implied: false },
        count: 2,
      }),
    ]);
    expect(flows[0].samples.map((s: { trafficEventId: string }) => s.trafficEventId)).toEqual([
      batch[0].id,
      batch[1].id,
    ]);

    const records = await allLogs(experiment);
    const mine = records.filter((r) => batch.some((e) => e.id === r.trafficEventId));
    expect(
      mine.map((r) => [
        r.connection.srcIp,
        r.connection.destPort,
        r.liveResult.action,
        r.experimentResult.action,
        r.changed,
      ]),
    ).toEqual([
      ['10.0.1.7', 22, 'allow', 'deny', true],
      ['10.0.1.7', 22, 'allow', 'deny', true],
    ]);
    expect(
      records.every(
        (r) => r.changed && r.experimentEtag === etag && r.logPrefix === 'FirewallPolicyPreviewLog',
      ),
    ).toBe(true);
    expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
    expect((await allLogs(experiment, true)).map((r) => r.id)).toEqual(records.map((r) => r.id));

    const report = (await call('GET', `${experiment}/previewReport`)).body;
    expect(report.configurations).toHaveLength(1);
    // Every changed event is a sample here (no flow has more than PREVIEW_FLOW_SAMPLES events).
    expect(report.configurations[0]).toMatchObject({
      experimentEtag: etag,
      evaluated: records.length + 3,
      changed: records.length,
      allowToDeny: records.length,
      denyToAllow: 0,
      unchangedAllow: 1,
      unchangedDeny: 2,
      flows: 2,
      changedOutsideFlows: 0,
    });
    expect(report.configurations[0].topChangedSources[0]).toEqual({ srcIp: '10.0.1.7', count: 2 });
  });

  it('stops recording once stopPreview has taken effect', async () => {
    expect((await call('POST', `${experiment}:stopPreview`)).status).toBe(200);
    await eventually(
      async () => {
        const probe = event('10.0.1.3');
        await sendTraffic('edge', [probe]);
        return (await allLogs(experiment)).some((r) => r.trafficEventId === probe.id)
          ? undefined
          : true;
      },
      { what: 'preview stopped' },
    );
    const before = (await call('GET', `${experiment}/previewReport`)).body;
    await sendTraffic('edge', [event('10.0.1.4'), event('10.0.1.5')]);
    expect((await call('GET', `${experiment}/previewReport`)).body).toEqual(before);
  });

  it('hides the preview logs and report from another team (404, as for a project that does not exist)', async () => {
    const logs = await allLogs(experiment);
    expect(logs.length).toBeGreaterThan(0);
    const report = (await call('GET', `${experiment}/previewReport`)).body;
    const otherProject = experiment.replace('/projects/acme/', '/projects/nonexistent/');
    for (const path of [
      `${experiment}/previewFlows`,
      `${experiment}/previewLogs`,
      `${experiment}/previewLogs?changedOnly=true&pageSize=1`,
      `${experiment}/previewReport`,
    ]) {
      const refused = await call('GET', path, undefined, OTHER_TEAM_TOKEN);
      const unknown = await call(
        'GET',
        path.replace(experiment, otherProject),
        undefined,
        OTHER_TEAM_TOKEN,
      );
      const comparable = (
        error: { message: string; details: { '@type': string }[] },
        project: string,
      ) => ({
        ...error,
        message: error.message.replace(project, '<project>'),
        details: error.details.filter((detail) => !detail['@type'].endsWith('RequestInfo')),
      });
      expect({
        path,
        status: refused.status,
        error: comparable(refused.body.error, 'acme'),
      }).toEqual({ path, status: 404, error: comparable(unknown.body.error, 'nonexistent') });
      expect(JSON.stringify(refused.body)).not.toMatch(/10\.0\.1\.|trafficEventId|evaluated/);
    }
    // A page token of acme's logs opens nothing in the other team's project either.
    const page = await call('GET', `${experiment}/previewLogs?pageSize=1`);
    expect(page.body.nextPageToken).toBeTruthy();
    const theirs = experiment.replace('/projects/acme/', '/projects/other/');
    const replayed = await call(
      'GET',
      `${theirs}/previewLogs?pageSize=1&pageToken=${encodeURIComponent(page.body.nextPageToken)}`,
      undefined,
      OTHER_TEAM_TOKEN,
    );
    expect([400, 404]).toContain(replayed.status);
    expect(replayed.body.previewLogs).toBeUndefined();
    // Unchanged for the owner.
    expect(await allLogs(experiment)).toEqual(logs);
    expect((await call('GET', `${experiment}/previewReport`)).body).toEqual(report);
  });

  it('validates queries and names what is wrong', async () => {
    for (const query of [
      'pageSize=abc',
      'pageSize=-1',
      'pageSize=100000',
      'changedOnly=maybe',
      'pageToken=forged',
      'unknown=1',
    ]) {
      const response = await call('GET', `${experiment}/previewLogs?${query}`);
      expect({ query, status: response.status, code: response.body.error?.status }).toEqual({
        query,
        status: 400,
        code: 'INVALID_ARGUMENT',
      });
    }
    expect((await call('GET', `${P}/edge/experiments/nope/previewLogs`)).status).toBe(404);
    expect((await call('GET', `${P}/edge/experiments/nope/previewReport`)).status).toBe(404);
    expect((await call('GET', `${P}/edge/experiments/Not_An_Id/previewReport`)).status).toBe(400);
  });
});

/**
 * What the gateway itself does with the evaluator's answers, whatever the evaluator holds:
 * stand-ins answer the evaluator's and the experiment-service's subjects on the real NATS
 * server, in a namespace of their own, as those services do (the NestJS transport's packets,
 * in their queue groups), and record what they were asked.
 */
describe('previewFlows, deleted experiments and the deprecated previewLogs, against stand-in services', () => {
  const standInNamespace = uniqueName();
  const standInNs = new NatsNamespace(standInNamespace);
  const codec = JSONCodec<unknown>();
  const name = 'projects/acme/locations/global/firewallPolicies/edge/experiments/block-ssh';
  const path = `${P}/edge/experiments/block-ssh`;
  const flow: PreviewFlow = {
    experimentEtag: 'E2',
    livePolicyEtag: 'P1',
    direction: 'INGRESS',
    srcIp: '10.0.1.7',
    destIp: '192.0.2.1',
    protocol: 'tcp',
    destPort: 22,
    transition: 'ALLOW_TO_DENY',
    liveResult: { action: 'allow', rulePriority: 100, implied: false },
    experimentResult: { action: 'deny', rulePriority: 10, implied: false },
    count: 3,
    firstEventTime: '2025-06-01T12:00:01.000Z',
    lastEventTime: '2025-06-01T12:00:03.000Z',
    samples: [{ trafficEventId: 'evt-1', eventTime: '2025-06-01T12:00:01.000Z', srcPort: 51512 }],
  };
  const configuration: PreviewConfigurationReport = {
    experimentEtag: 'E2',
    livePolicyEtag: 'P1',
    evaluated: 10,
    changed: 3,
    allowToDeny: 3,
    denyToAllow: 0,
    unchangedAllow: 5,
    unchangedDeny: 2,
    liveRules: [{ rulePriority: 100, implied: false, action: 'allow', count: 8 }],
    experimentRules: [{ rulePriority: 10, implied: false, action: 'deny', count: 3 }],
    topChangedSources: [{ srcIp: '10.0.1.7', count: 3 }],
    topChangedDestinationPorts: [{ protocol: 'tcp', destPort: 22, count: 3 }],
    flows: 1,
    changedOutsideFlows: 0,
    firstEventTime: '2025-06-01T12:00:01.000Z',
    lastEventTime: '2025-06-01T12:00:03.000Z',
  };
  const notFound = StatusError.withReason(
    'NOT_FOUND',
    `Experiment "${name}" not found.`,
    'EXPERIMENT_NOT_FOUND',
  ).toStatus();

  type Answer = { response: unknown } | { err: Status };
  /** What each subject answers (set per test) and what it was asked. */
  const answers = new Map<string, (data: unknown) => Answer>();
  const asked = new Map<string, unknown[]>();
  const askedOn = (subject: string) => asked.get(subject) ?? [];
  let standInNc: NatsConnection;
  let standInGateway: INestApplication;
  let standInBase: string;

  const standIns: [subject: string, queue: string][] = [
    [EXPERIMENT_SUBJECTS.getExperiment, 'experiment-service'],
    [PREVIEW_SUBJECTS.previewFlows, 'evaluator'],
    [PREVIEW_SUBJECTS.previewLogs, 'evaluator'],
    [PREVIEW_SUBJECTS.previewReport, 'evaluator'],
  ];

  async function get(
    url: string,
    token = TOKEN,
  ): Promise<{ status: number; headers: Headers; body: JsonBody }> {
    const response = await fetch(`${standInBase}${url}`, {
      headers: { authorization: `Bearer ${token}`, 'user-agent': 'audit-cli/1.0.0' },
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: text ? JSON.parse(text) : {},
    };
  }

  /** The value of one sample of a gateway counter, 0 when it has none with these labels. */
  async function sample(metric: string, labels: Record<string, string>): Promise<number> {
    const text = await (await fetch(`${standInBase}/metrics`)).text();
    const line = text
      .split('\n')
      .find(
        (l) =>
          l.startsWith(`${metric}{`) &&
          Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)),
      );
    return line ? Number(line.split(' ').at(-1)) : 0;
  }

  beforeAll(async () => {
    standInNc = await connect({ servers: TEST_NATS_URL });
    for (const [subject, queue] of standIns) {
      standInNc.subscribe(standInNs.subject(subject), {
        queue,
        callback: (_error, msg) => {
          const packet = codec.decode(msg.data) as { id?: string; data?: unknown };
          asked.set(subject, [...askedOn(subject), packet.data]);
          const answer = answers.get(subject)?.(packet.data) ?? {
            err: StatusError.withReason(
              'INTERNAL',
              `no answer set for ${subject}`,
              'TEST',
            ).toStatus(),
          };
          msg.respond(codec.encode({ id: packet.id, isDisposed: true, ...answer }));
        },
      });
    }
    await standInNc.flush();
    const config = loadConfig(configSchema, {
      NATS_URL: TEST_NATS_URL,
      NATS_NAMESPACE: standInNamespace,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      AUTH_API_KEYS: API_KEYS,
      RATE_LIMIT_PER_SECOND: '10000',
      RATE_LIMIT_BURST: '10000',
      RPC_TIMEOUT_MS: '5000',
    });
    standInGateway = await startServiceApp(gatewayApp(config));
    standInBase = `http://127.0.0.1:${(standInGateway.getHttpServer().address() as AddressInfo).port}`;
  }, 30_000);

  afterAll(async () => {
    await standInGateway?.close();
    await standInNc?.close();
    await removeTestResources({ namespace: standInNamespace });
  });

  beforeEach(() => {
    answers.clear();
    asked.clear();
    answers.set(EXPERIMENT_SUBJECTS.getExperiment, (data) => ({
      response: {
        name: (data as { name: string }).name,
        firewallPolicy: { rules: [] },
        etag: 'E2',
      },
    }));
  });

  it('previewFlows passes parent, filter, pageSize and pageToken through and returns the page, its token sealed', async () => {
    const filter = 'transition = ALLOW_TO_DENY AND ip = "10.0.0.0/8" AND destPort = 22';
    answers.set(PREVIEW_SUBJECTS.previewFlows, (data) =>
      (data as ListPreviewFlowsRequest).pageToken
        ? { response: { previewFlows: [] } }
        : { response: { previewFlows: [flow], nextPageToken: 'evaluator-page-2' } },
    );
    const first = await get(`${path}/previewFlows?filter=${encodeURIComponent(filter)}&pageSize=1`);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      previewFlows: [flow],
      nextPageToken: expect.stringMatching(/^evaluator-page-2\.[\w-]+$/),
    });
    expect(first.headers.get('deprecation')).toBeNull();

    const second = await get(
      `${path}/previewFlows?filter=${encodeURIComponent(filter)}&pageSize=1&pageToken=${encodeURIComponent(first.body.nextPageToken)}`,
    );
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ previewFlows: [] });
    expect(askedOn(PREVIEW_SUBJECTS.previewFlows)).toEqual([
      { parent: name, filter, pageSize: 1 },
      { parent: name, filter, pageSize: 1, pageToken: 'evaluator-page-2' },
    ]);
    expect(askedOn(EXPERIMENT_SUBJECTS.getExperiment)).toEqual([{ name }, { name }]);

    // The same guard as the other preview routes: another team's project is 404, nobody asked.
    expect((await get(`${path}/previewFlows`, OTHER_TEAM_TOKEN)).status).toBe(404);
    expect(askedOn(PREVIEW_SUBJECTS.previewFlows)).toHaveLength(2);
  });

  it('refuses a page size over 1000 and a filter over 2000 characters (400) without asking the evaluator', async () => {
    answers.set(PREVIEW_SUBJECTS.previewFlows, () => ({ response: { previewFlows: [] } }));
    for (const [query, field] of [
      ['pageSize=5000', 'pageSize'],
      [`filter=${'a'.repeat(2001)}`, 'filter'],
    ]) {
      const refused = await get(`${path}/previewFlows?${query}`);
      expect({ field, status: refused.status, code: refused.body.error?.status }).toEqual({
        field,
        status: 400,
        code: 'INVALID_ARGUMENT',
      });
      expect(refused.body.error.message).toMatch(new RegExp(`^${field} `));
    }
    expect(askedOn(PREVIEW_SUBJECTS.previewFlows)).toEqual([]);
    // 2000 characters is the bound, not past it: the evaluator judges that one.
    expect((await get(`${path}/previewFlows?filter=${'a'.repeat(2000)}`)).status).toBe(200);
    expect(askedOn(PREVIEW_SUBJECTS.previewFlows)).toEqual([
      { parent: name, filter: 'a'.repeat(2000) },
    ]);
  });

  it("answers the evaluator's INVALID_ARGUMENT on a filter as 400 in the error model", async () => {
    const bad = StatusError.invalidArgument('filter: unknown field "colour" at position 0.', [
      { field: 'filter', description: 'unknown field "colour"' },
    ]);
    answers.set(PREVIEW_SUBJECTS.previewFlows, () => ({ err: bad.toStatus() }));
    const refused = await get(`${path}/previewFlows?filter=${encodeURIComponent('colour = red')}`);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 400,
      status: 'INVALID_ARGUMENT',
      message: bad.message,
    });
    expect(refused.body.error.details).toEqual([
      {
        '@type': 'type.googleapis.com/google.rpc.BadRequest',
        fieldViolations: [{ field: 'filter', description: 'unknown field "colour"' }],
      },
      expect.objectContaining({
        '@type': 'type.googleapis.com/google.rpc.RequestInfo',
        requestId: refused.headers.get('x-request-id'),
      }),
    ]);
  });

  it('keeps what the evaluator holds of a committed or deleted experiment readable, and 404 when it holds nothing', async () => {
    answers.set(EXPERIMENT_SUBJECTS.getExperiment, () => ({ err: notFound }));
    const report = { name, configurations: [configuration] };
    answers.set(PREVIEW_SUBJECTS.previewReport, () => ({ response: report }));
    answers.set(PREVIEW_SUBJECTS.previewFlows, () => ({ response: { previewFlows: [flow] } }));
    const kept = await get(`${path}/previewReport`);
    expect({ status: kept.status, body: kept.body }).toEqual({ status: 200, body: report });
    expect((await get(`${path}/previewFlows`)).body).toEqual({ previewFlows: [flow] });

    answers.set(PREVIEW_SUBJECTS.previewReport, () => ({ response: { name, configurations: [] } }));
    answers.set(PREVIEW_SUBJECTS.previewFlows, () => ({ response: { previewFlows: [] } }));
    for (const route of ['previewReport', 'previewFlows']) {
      const gone = await get(`${path}/${route}`);
      expect({
        route,
        status: gone.status,
        error: gone.body.error?.status,
        message: gone.body.error?.message,
      }).toEqual({
        route,
        status: 404,
        error: 'NOT_FOUND',
        message: notFound.message,
      });
    }
    // Any other failure of the experiment-service is not forgiven, whatever the evaluator holds.
    answers.set(EXPERIMENT_SUBJECTS.getExperiment, () => ({
      err: StatusError.withReason(
        'UNAVAILABLE',
        'The event store is unavailable.',
        'DATABASE_UNAVAILABLE',
      ).toStatus(),
    }));
    answers.set(PREVIEW_SUBJECTS.previewReport, () => ({ response: report }));
    expect((await get(`${path}/previewReport`)).status).toBe(503);
  });

  it('still answers previewLogs, marked deprecated (Deprecation, Sunset, Link), counted, and deprecated in the OpenAPI document', async () => {
    const uses = (target: string) =>
      sample('deprecated_feature_use_total', {
        contract: 'preview.v1',
        field: target,
        client: 'audit-cli',
      });
    const before = {
      subject: await uses(PREVIEW_SUBJECTS.previewLogs),
      changedOnly: await uses('ListPreviewLogsRequest.changedOnly'),
    };
    answers.set(PREVIEW_SUBJECTS.previewLogs, () => ({ response: { previewLogs: [] } }));
    const plain = await get(`${path}/previewLogs?pageSize=10`);
    const changedOnly = await get(`${path}/previewLogs?changedOnly=true`);
    expect([plain.status, plain.body, changedOnly.status]).toEqual([200, { previewLogs: [] }, 200]);
    expect(askedOn(PREVIEW_SUBJECTS.previewLogs)).toEqual([
      { name, pageSize: 10 },
      { name, changedOnly: true },
    ]);
    for (const answer of [plain, changedOnly]) {
      expect(answer.headers.get('deprecation')).toBe(`@${Date.parse('2026-11-25') / 1000}`);
      expect(answer.headers.get('sunset')).toBe('Fri, 31 Dec 2027 00:00:00 GMT');
      expect(answer.headers.get('link')).toBe('</docs>; rel="deprecation"; type="text/html"');
    }
    // The subject on every call, the deprecated field only where it was set.
    expect(await uses(PREVIEW_SUBJECTS.previewLogs)).toBe(before.subject + 2);
    expect(await uses('ListPreviewLogsRequest.changedOnly')).toBe(before.changedOnly + 1);

    const document: JsonBody = await (await fetch(`${standInBase}/docs/openapi.json`)).json();
    const operations = (route: string) =>
      document.paths[
        `/v1/projects/{project}/locations/{location}/firewallPolicies/{policy}/experiments/{experiment}/${route}`
      ].get;
    expect(operations('previewLogs').deprecated).toBe(true);
    expect(
      operations('previewLogs').parameters.find((p: { name: string }) => p.name === 'changedOnly')
        .deprecated,
    ).toBe(true);
    expect(operations('previewFlows').deprecated).toBeUndefined();
  });
});
