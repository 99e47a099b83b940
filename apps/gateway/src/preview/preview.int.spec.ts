import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@rollout/config';
import { PreviewLogRecord, TRAFFIC_STREAM, TrafficEvent, trafficSubject } from '@rollout/contracts';
import { NatsNamespace } from '@rollout/nats';
import { startServiceApp } from '@rollout/service-kit';
import { ServiceProcess, TEST_NATS_URL, eventually, removeTestResources, startServiceProcess, uniqueName } from '@rollout/testing';
import { NatsConnection, connect } from 'nats';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { configSchema } from '../config';
import { gatewayApp } from '../gateway-app';

/**
 * Previewing through the gateway against real traffic: the gateway in-process, the
 * experiment-service and the evaluator from their own main.ts in child processes (apps never
 * import each other), on one NATS namespace, each with its own Postgres schema.
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
const SMALL_STREAMS = { TRAFFIC_MAX_BYTES: String(64 * 1024 ** 2), PREVIEW_LOGS_MAX_BYTES: String(64 * 1024 ** 2) };

let gateway: INestApplication;
let services: ServiceProcess[] = [];
let base: string;
let nc: NatsConnection;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function call(method: string, path: string, body?: unknown, token = TOKEN): Promise<{ status: number; body: any }> {
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
  for (const e of events) last = (await js.publish(ns.subject(trafficSubject('acme', 'global', policy)), JSON.stringify(e), { msgID: e.id })).seq;
  await eventually(async () => {
    const info = await (await nc.jetstreamManager()).consumers.info(ns.stream(TRAFFIC_STREAM), 'evaluator');
    return info.ack_floor.stream_seq >= last && info.num_ack_pending === 0 ? true : undefined;
  }, { what: 'traffic settled' });
}

async function allLogs(path: string, changedOnly = false): Promise<PreviewLogRecord[]> {
  const records: PreviewLogRecord[] = [];
  let token = '';
  do {
    const page = await call('GET', `${path}/previewLogs?pageSize=4${changedOnly ? '&changedOnly=true' : ''}${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`);
    expect(page.status).toBe(200);
    records.push(...page.body.previewLogs);
    token = page.body.nextPageToken ?? '';
  } while (token);
  return records;
}

beforeAll(async () => {
  const common = { NATS_URL: TEST_NATS_URL, NATS_NAMESPACE: namespace, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' };
  services = [
    startServiceProcess('experiment-service', { NATS_NAMESPACE: namespace, DATABASE_SCHEMA: schemas.experiment }),
    startServiceProcess('evaluator', { NATS_NAMESPACE: namespace, DATABASE_SCHEMA: schemas.preview, ...SMALL_STREAMS }),
  ];
  const config = loadConfig(configSchema, { ...common, AUTH_API_KEYS: API_KEYS, RATE_LIMIT_PER_SECOND: '10000', RATE_LIMIT_BURST: '10000', RPC_TIMEOUT_MS: '10000' });
  gateway = await startServiceApp(gatewayApp(config));
  base = `http://127.0.0.1:${(gateway.getHttpServer().address() as AddressInfo).port}`;
  for (const service of ['experiment-service', 'evaluator']) {
    await eventually(async () => ((await call('GET', `/v1/services/${service}`)).status === 200 ? true : undefined), {
      timeoutMs: 40_000,
      intervalMs: 200,
      what: `${service} serving`,
    });
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

describe('previewing an experiment against traffic, through the gateway', () => {
  const experiment = `${P}/edge/experiments/block-ssh`;
  const allowSsh = { priority: 100, direction: 'INGRESS', action: 'allow', match: { srcIpRanges: ['10.0.0.0/8'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] } };
  const denyNet = { priority: 10, direction: 'INGRESS', action: 'deny', match: { srcIpRanges: ['10.0.1.0/24'] } };

  beforeAll(async () => {
    expect((await call('POST', `${P}?firewallPolicyId=edge`, { rules: [allowSsh] })).status).toBe(200);
    expect((await call('POST', `${P}/edge/experiments?experimentId=block-ssh`, { firewallPolicy: { rules: [denyNet, allowSsh] } })).status).toBe(200);
  });

  it('records nothing before startPreview, then logs and counts every event once it returns', async () => {
    await sendTraffic('edge', [event('10.0.1.1')]);
    expect((await call('GET', `${experiment}/previewLogs`)).body).toEqual({ previewLogs: [] });
    expect((await call('GET', `${experiment}/previewReport`)).body).toEqual({ name: 'projects/acme/locations/global/firewallPolicies/edge/experiments/block-ssh', configurations: [] });

    const started = await call('POST', `${experiment}:startPreview`);
    expect(started.status).toBe(200);
    const etag = started.body.response.etag;
    // The evaluator learns of it from the experiment service's events: a probe shows when.
    await eventually(async () => {
      const probe = event('10.0.1.2');
      await sendTraffic('edge', [probe]);
      return (await allLogs(experiment)).some((r) => r.trafficEventId === probe.id) ? true : undefined;
    }, { what: 'preview in force' });

    const batch = [event('10.0.1.7'), event('10.0.1.7'), event('10.0.2.7'), event('10.0.1.8', 443), event('203.0.113.1')];
    await sendTraffic('edge', batch);
    const records = await allLogs(experiment);
    const mine = records.filter((r) => batch.some((e) => e.id === r.trafficEventId));
    expect(mine.map((r) => [r.connection.srcIp, r.connection.destPort, r.liveResult.action, r.experimentResult.action, r.changed]).sort()).toEqual(
      [
        ['10.0.1.7', 22, 'allow', 'deny', true],
        ['10.0.1.7', 22, 'allow', 'deny', true],
        ['10.0.2.7', 22, 'allow', 'allow', false],
        ['10.0.1.8', 443, 'deny', 'deny', false],
        ['203.0.113.1', 22, 'deny', 'deny', false],
      ].sort(),
    );
    expect(mine.every((r) => r.experimentEtag === etag && r.logPrefix === 'FirewallPolicyPreviewLog')).toBe(true);
    expect(new Set(records.map((r) => r.id)).size).toBe(records.length);

    const changed = await allLogs(experiment, true);
    expect(changed.map((r) => r.id)).toEqual(records.filter((r) => r.changed).map((r) => r.id));

    const report = (await call('GET', `${experiment}/previewReport`)).body;
    expect(report.configurations).toHaveLength(1);
    expect(report.configurations[0]).toMatchObject({
      experimentEtag: etag,
      evaluated: records.length,
      changed: changed.length,
      allowToDeny: changed.length,
      denyToAllow: 0,
    });
    expect(report.configurations[0].topChangedSources[0]).toEqual({ srcIp: '10.0.1.7', count: 2 });
  });

  it('stops recording once stopPreview has taken effect', async () => {
    expect((await call('POST', `${experiment}:stopPreview`)).status).toBe(200);
    await eventually(async () => {
      const probe = event('10.0.1.3');
      await sendTraffic('edge', [probe]);
      return (await allLogs(experiment)).some((r) => r.trafficEventId === probe.id) ? undefined : true;
    }, { what: 'preview stopped' });
    const before = (await call('GET', `${experiment}/previewReport`)).body;
    await sendTraffic('edge', [event('10.0.1.4'), event('10.0.1.5')]);
    expect((await call('GET', `${experiment}/previewReport`)).body).toEqual(before);
  });

  it("hides the preview logs and report from another team (404, as for a project that does not exist)", async () => {
    const logs = await allLogs(experiment);
    expect(logs.length).toBeGreaterThan(0);
    const report = (await call('GET', `${experiment}/previewReport`)).body;
    const otherProject = experiment.replace('/projects/acme/', '/projects/nonexistent/');
    for (const path of [`${experiment}/previewLogs`, `${experiment}/previewLogs?changedOnly=true&pageSize=1`, `${experiment}/previewReport`]) {
      const refused = await call('GET', path, undefined, OTHER_TEAM_TOKEN);
      const unknown = await call('GET', path.replace(experiment, otherProject), undefined, OTHER_TEAM_TOKEN);
      const comparable = (error: { message: string; details: { '@type': string }[] }, project: string) => ({
        ...error,
        message: error.message.replace(project, '<project>'),
        details: error.details.filter((detail) => !detail['@type'].endsWith('RequestInfo')),
      });
      expect({ path, status: refused.status, error: comparable(refused.body.error, 'acme') }).toEqual({ path, status: 404, error: comparable(unknown.body.error, 'nonexistent') });
      expect(JSON.stringify(refused.body)).not.toMatch(/10\.0\.1\.|trafficEventId|evaluated/);
    }
    // A page token of acme's logs opens nothing in the other team's project either.
    const page = await call('GET', `${experiment}/previewLogs?pageSize=1`);
    expect(page.body.nextPageToken).toBeTruthy();
    const theirs = experiment.replace('/projects/acme/', '/projects/other/');
    const replayed = await call('GET', `${theirs}/previewLogs?pageSize=1&pageToken=${encodeURIComponent(page.body.nextPageToken)}`, undefined, OTHER_TEAM_TOKEN);
    expect([400, 404]).toContain(replayed.status);
    expect(replayed.body.previewLogs).toBeUndefined();
    // Unchanged for the owner.
    expect(await allLogs(experiment)).toEqual(logs);
    expect((await call('GET', `${experiment}/previewReport`)).body).toEqual(report);
  });

  it('validates queries and names what is wrong', async () => {
    for (const query of ['pageSize=abc', 'pageSize=-1', 'pageSize=100000', 'changedOnly=maybe', 'pageToken=forged', 'unknown=1']) {
      const response = await call('GET', `${experiment}/previewLogs?${query}`);
      expect({ query, status: response.status, code: response.body.error?.status }).toEqual({ query, status: 400, code: 'INVALID_ARGUMENT' });
    }
    expect((await call('GET', `${P}/edge/experiments/nope/previewLogs`)).status).toBe(404);
    expect((await call('GET', `${P}/edge/experiments/nope/previewReport`)).status).toBe(404);
    expect((await call('GET', `${P}/edge/experiments/Not_An_Id/previewReport`)).status).toBe(400);
  });
});
