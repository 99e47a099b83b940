import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@rollout/config';
import { EXPERIMENT_EVENTS_STREAM } from '@rollout/contracts';
import { startServiceApp } from '@rollout/service-kit';
import { ServiceProcess, TEST_NATS_URL, eventually, freePort, removeTestResources, startServiceProcess, uniqueName } from '@rollout/testing';
import { JSONCodec, NatsConnection, connect } from 'nats';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { configSchema } from '../config';
import { gatewayApp } from '../gateway-app';

/**
 * AIP-236 through the gateway: the gateway in-process, the experiment-service from its own
 * main.ts in a child process (apps never import each other), on one NATS namespace and a
 * Postgres schema of their own.
 */
const namespace = uniqueName();
const schema = uniqueName('it_');
const TOKEN = 'experiments-test-token';
/** An editor of another team's project only. */
const OTHER_TEAM_TOKEN = 'other-team-token';
const apiKey = (name: string, token: string, roles: string[], projects: string[] | '*') => ({ name, sha256: createHash('sha256').update(token).digest('hex'), roles, projects });
const API_KEYS = [apiKey('test-admin', TOKEN, ['admin'], '*'), apiKey('other-team', OTHER_TEAM_TOKEN, ['editor'], ['other'])];
const P = '/v1/projects/acme/locations/global/firewallPolicies';
const rule = (priority: number, action = 'deny') => ({ priority, direction: 'INGRESS', action, match: { srcIpRanges: ['0.0.0.0/0'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] } });

let gateway: INestApplication;
let service: ServiceProcess;
let base: string;
let nc: NatsConnection;

interface Response<T = Record<string, any>> { status: number; body: T } // eslint-disable-line @typescript-eslint/no-explicit-any

async function call(method: string, path: string, body?: unknown, token = TOKEN): Promise<Response> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

async function createPolicy(id: string, rules: unknown[] = []) {
  const created = await call('POST', `${P}?firewallPolicyId=${id}`, { displayName: id, rules });
  expect(created.status).toBe(200);
  return created.body;
}

async function createExperiment(policy: string, id: string, rules: unknown[] = [rule(100)]) {
  const created = await call('POST', `${P}/${policy}/experiments?experimentId=${id}`, { firewallPolicy: { rules } });
  expect(created.status).toBe(200);
  return created.body.response;
}

const idsOf = (experiments: { name: string }[] = []) => experiments.map((e) => e.name.split('/').at(-1));

beforeAll(async () => {
  const common = { NATS_URL: TEST_NATS_URL, NATS_NAMESPACE: namespace, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' };
  service = startServiceProcess('experiment-service', { NATS_NAMESPACE: namespace, DATABASE_SCHEMA: schema, DATABASE_POOL_SIZE: '20' });
  const gatewayConfig = loadConfig(configSchema, { ...common, AUTH_API_KEYS: JSON.stringify(API_KEYS), RATE_LIMIT_PER_SECOND: '10000', RATE_LIMIT_BURST: '10000', RPC_TIMEOUT_MS: '10000' });
  gateway = await startServiceApp(gatewayApp(gatewayConfig));
  base = `http://127.0.0.1:${(gateway.getHttpServer().address() as AddressInfo).port}`;
  await eventually(async () => ((await call('GET', '/v1/services/experiment-service')).status === 200 ? true : undefined), {
    timeoutMs: 25_000,
    intervalMs: 200,
    what: 'experiment-service serving',
  });
  nc = await connect({ servers: TEST_NATS_URL });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await service?.stop();
  await nc?.close();
  await removeTestResources({ schema, namespace });
});

describe('live firewall policies', () => {
  it('creates, reads, updates with the etag, and refuses a stale etag', async () => {
    const created = await createPolicy('web', [rule(10, 'allow')]);
    expect(created).toMatchObject({ name: 'projects/acme/locations/global/firewallPolicies/web', displayName: 'web', rules: [rule(10, 'allow')] });
    expect((await call('GET', `${P}/web`)).body).toEqual(created);
    const updated = await call('PATCH', `${P}/web?updateMask=rules`, { etag: created.etag, rules: [rule(20)] });
    expect(updated.status).toBe(200);
    expect(updated.body.rules).toEqual([rule(20)]);
    expect(updated.body.etag).not.toBe(created.etag);
    const stale = await call('PATCH', `${P}/web?updateMask=rules`, { etag: created.etag, rules: [] });
    expect(stale.status).toBe(409);
    expect(stale.body.error.status).toBe('ABORTED');
    expect((await call('POST', `${P}?firewallPolicyId=web`, {})).status).toBe(409);
  });

  it('names the bad field of an invalid policy or id', async () => {
    const dup = await call('POST', `${P}?firewallPolicyId=dup`, { rules: [rule(1), rule(1)] });
    expect(dup.status).toBe(400);
    expect(dup.body.error.details[0].fieldViolations[0].field).toBe('firewallPolicy.rules[1].priority');
    const badId = await call('POST', `${P}?firewallPolicyId=Bad_Id`, {});
    expect(badId.status).toBe(400);
    expect(badId.body.error.details[0].fieldViolations[0].field).toBe('firewallPolicyId');
    expect((await call('GET', `${P}/missing`)).status).toBe(404);
  });

  it('deleting a policy deletes its experiments with it', async () => {
    await createPolicy('cascade');
    await createExperiment('cascade', 'one');
    await createExperiment('cascade', 'two');
    expect((await call('DELETE', `${P}/cascade`)).status).toBe(200);
    expect((await call('GET', `${P}/cascade`)).status).toBe(404);
    expect((await call('GET', `${P}/cascade/experiments/one`)).status).toBe(404);
    expect((await call('GET', `${P}/cascade/experiments`)).body.experiments ?? []).toEqual([]);
  });

  it('lists every policy exactly once across pages', async () => {
    for (const id of ['page-a', 'page-b', 'page-c', 'page-d', 'page-e']) await createPolicy(id);
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = await call('GET', `${P}?pageSize=2${token ? `&pageToken=${token}` : ''}`);
      seen.push(...page.body.firewallPolicies.map((p: { name: string }) => p.name));
      token = page.body.nextPageToken;
    } while (token);
    const pages = seen.filter((n) => n.includes('/page-'));
    expect(pages).toHaveLength(5);
    expect(new Set(seen).size).toBe(seen.length);
    expect((await call('GET', `${P}?pageToken=forged`)).status).toBe(400);
  });
});

describe('experiments', () => {
  beforeAll(async () => {
    await createPolicy('api', [rule(10, 'allow')]);
  });

  it('creates an experiment as a done Operation that GET /v1/operations returns', async () => {
    const created = await call('POST', `${P}/api/experiments?experimentId=lockdown`, { firewallPolicy: { rules: [rule(5)] }, annotations: { ticket: 'SEC-1' } });
    expect(created.body).toMatchObject({ done: true, metadata: { verb: 'create' }, response: { name: `projects/acme/locations/global/firewallPolicies/api/experiments/lockdown`, annotations: { ticket: 'SEC-1' } } });
    expect(created.body.response.previewMetadata).toBeUndefined();
    expect(created.body.response.firewallPolicy.name).toBe('projects/acme/locations/global/firewallPolicies/api');
    const operation = await call('GET', `/v1/${created.body.name}`);
    expect(operation.body).toEqual(created.body);
  });

  it('refuses a policy name other than the live one, and a missing parent', async () => {
    const other = await call('POST', `${P}/api/experiments?experimentId=bad`, { firewallPolicy: { name: 'projects/acme/locations/global/firewallPolicies/other', rules: [] } });
    expect(other.status).toBe(400);
    expect((await call('POST', `${P}/nope/experiments?experimentId=x`, {})).status).toBe(404);
  });

  it('previews: ACTIVE with the log prefix, SUSPENDED when stopped or when updated', async () => {
    await createExperiment('api', 'preview');
    const started = await call('POST', `${P}/api/experiments/preview:startPreview`);
    expect(started.status).toBe(200);
    expect(started.body.response.previewMetadata).toMatchObject({ state: 'ACTIVE', logPrefix: 'FirewallPolicyPreviewLog', startTime: expect.any(String) });
    const stopped = await call('POST', `${P}/api/experiments/preview:stopPreview`);
    expect(stopped.body.response.previewMetadata).toMatchObject({ state: 'SUSPENDED', stopTime: expect.any(String) });
    await call('POST', `${P}/api/experiments/preview:startPreview`);
    const updated = await call('PATCH', `${P}/api/experiments/preview?updateMask=firewallPolicy.rules`, { firewallPolicy: { rules: [rule(7)] } });
    expect(updated.body.response.previewMetadata.state).toBe('SUSPENDED');
    expect(updated.body.response.firewallPolicy.rules).toEqual([rule(7)]);
    const rename = await call('PATCH', `${P}/api/experiments/preview?updateMask=firewallPolicy.name`, { firewallPolicy: { name: 'projects/acme/locations/global/firewallPolicies/x' } });
    expect(rename.status).toBe(400);
  });

  it('lists only ACTIVE experiments with the filter', async () => {
    await createPolicy('filtered');
    await createExperiment('filtered', 'on');
    await createExperiment('filtered', 'off');
    await call('POST', `${P}/filtered/experiments/on:startPreview`);
    for (const filter of ['previewMetadata.state = ACTIVE', 'preview_metadata.state = ACTIVE']) {
      const listed = await call('GET', `${P}/filtered/experiments?filter=${encodeURIComponent(filter)}`);
      expect(listed.body.experiments.map((e: { name: string }) => e.name.split('/').at(-1))).toEqual(['on']);
    }
    const not = await call('GET', `${P}/filtered/experiments?filter=${encodeURIComponent('previewMetadata.state != ACTIVE')}`);
    expect(not.body.experiments.map((e: { name: string }) => e.name.split('/').at(-1))).toEqual(['off']);
    expect((await call('GET', `${P}/filtered/experiments?filter=${encodeURIComponent("name = 'x' OR 1=1")}`)).status).toBe(400);
  });

  it('refuses the 11th experiment of a policy', async () => {
    await createPolicy('crowded');
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => call('POST', `${P}/crowded/experiments?experimentId=e${i}`, { firewallPolicy: { rules: [] } })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    expect(results.filter((r) => r.status === 429).map((r) => r.body.error.status)).toEqual(['RESOURCE_EXHAUSTED', 'RESOURCE_EXHAUSTED']);
  });

  it('does a retried request (same requestId) once, answering the first result', async () => {
    await createPolicy('retry');
    const first = await call('POST', `${P}/retry/experiments?experimentId=once&requestId=req-123`, { firewallPolicy: { rules: [] } });
    const again = await call('POST', `${P}/retry/experiments?experimentId=once&requestId=req-123`, { firewallPolicy: { rules: [] } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const history = await call('GET', `${P}/retry/experiments/once/events`);
    expect(history.body.events.map((e: { type: string; requestId: string; actor: string }) => [e.type, e.requestId, e.actor])).toEqual([['ExperimentCreated', 'req-123', 'test-admin']]);
  });
});

describe('every other method and its errors', () => {
  it('policy: stale or missing targets are ABORTED or NOT_FOUND, and the history names actor and request id', async () => {
    const live = await createPolicy('lifecycle', [rule(10, 'allow')]);
    expect((await call('PATCH', `${P}/missing?updateMask=rules`, { rules: [] })).status).toBe(404);
    expect((await call('DELETE', `${P}/missing`)).status).toBe(404);
    const stale = await call('DELETE', `${P}/lifecycle?etag=stale`);
    expect(stale.status).toBe(409);
    expect(stale.body.error.status).toBe('ABORTED');
    // Output-only fields in a request are ignored, not an error.
    const renamed = await call('PATCH', `${P}/lifecycle?updateMask=displayName&requestId=rename-1`, { displayName: 'Lifecycle', etag: live.etag, createTime: '1999-01-01T00:00:00Z' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ displayName: 'Lifecycle', rules: [rule(10, 'allow')], createTime: live.createTime });
    const history = (await call('GET', `${P}/lifecycle/events`)).body.events;
    expect(history.map((e: { type: string; version: number; actor: string }) => [e.type, e.version, e.actor])).toEqual([
      ['PolicyCreated', 1, 'test-admin'],
      ['PolicyUpdated', 2, 'test-admin'],
    ]);
    expect(history[1]).toMatchObject({ requestId: 'rename-1', time: expect.any(String) });
    expect((await call('DELETE', `${P}/lifecycle?etag=${encodeURIComponent(renamed.body.etag)}`)).status).toBe(200);
    expect((await call('GET', `${P}/lifecycle/events`)).body.events.at(-1).type).toBe('PolicyDeleted');
  });

  it('experiment: get, annotations, etags, delete as an Operation, history', async () => {
    await createPolicy('exp-methods');
    const created = await createExperiment('exp-methods', 'candidate');
    // The Operation's response carries its @type (AIP-151); the resource itself does not.
    const { '@type': type, ...resource } = created;
    expect(type).toBe('type.googleapis.com/policyrollout.experiment.v1.FirewallPolicyExperiment');
    expect((await call('GET', `${P}/exp-methods/experiments/candidate`)).body).toEqual(resource);
    expect((await call('GET', `${P}/exp-methods/experiments/absent`)).status).toBe(404);
    expect((await call('POST', `${P}/exp-methods/experiments?experimentId=candidate`, { firewallPolicy: { rules: [] } })).status).toBe(409);
    expect((await call('POST', `${P}/exp-methods/experiments?experimentId=Not_An_Id`, { firewallPolicy: { rules: [] } })).body.error.details[0].fieldViolations[0].field).toBe('experimentId');

    const tooMany = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v']));
    const refused = await call('PATCH', `${P}/exp-methods/experiments/candidate?updateMask=annotations`, { annotations: tooMany });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details[0].fieldViolations[0].field).toBe('annotations');
    const annotated = await call('PATCH', `${P}/exp-methods/experiments/candidate?updateMask=annotations`, { annotations: { owner: 'netsec' }, etag: created.etag });
    expect(annotated.body.response).toMatchObject({ annotations: { owner: 'netsec' }, firewallPolicy: created.firewallPolicy });
    expect((await call('PATCH', `${P}/exp-methods/experiments/candidate?updateMask=annotations`, { annotations: {}, etag: created.etag })).status).toBe(409);

    expect((await call('DELETE', `${P}/exp-methods/experiments/candidate?etag=${encodeURIComponent(created.etag)}`)).status).toBe(409);
    const deleted = await call('DELETE', `${P}/exp-methods/experiments/candidate?etag=${encodeURIComponent(annotated.body.response.etag)}`);
    expect(deleted.body).toMatchObject({ done: true, metadata: { verb: 'delete' } });
    expect((await call('GET', `/v1/${deleted.body.name}`)).body).toEqual(deleted.body);
    expect((await call('GET', `${P}/exp-methods/experiments/candidate`)).status).toBe(404);
    expect((await call('GET', '/v1/operations/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('startPreview sets a new startTime every time it turns ACTIVE; stopPreview sets stopTime', async () => {
    await createPolicy('times');
    await createExperiment('times', 'e');
    const first = (await call('POST', `${P}/times/experiments/e:startPreview`)).body.response.previewMetadata;
    const stopped = (await call('POST', `${P}/times/experiments/e:stopPreview`)).body.response.previewMetadata;
    expect(stopped).toMatchObject({ state: 'SUSPENDED', startTime: first.startTime });
    expect(Date.parse(stopped.stopTime)).toBeGreaterThanOrEqual(Date.parse(first.startTime));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = (await call('POST', `${P}/times/experiments/e:startPreview`)).body.response.previewMetadata;
    expect(second.state).toBe('ACTIVE');
    expect(Date.parse(second.startTime)).toBeGreaterThan(Date.parse(first.startTime));
    const history = (await call('GET', `${P}/times/experiments/e/events`)).body.events.map((e: { type: string }) => e.type);
    expect(history).toEqual(['ExperimentCreated', 'PreviewStarted', 'PreviewStopped', 'PreviewStarted']);
  });

  it('lists every experiment exactly once across pages', async () => {
    await createPolicy('paged');
    const ids = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7'];
    for (const id of ids) await createExperiment('paged', id);
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = await call('GET', `${P}/paged/experiments?pageSize=3${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...idsOf(page.body.experiments).map(String));
      token = page.body.nextPageToken;
    } while (token);
    expect(seen.sort()).toEqual(ids);
    expect((await call('GET', `${P}/paged/experiments?pageSize=-1`)).status).toBe(400);
  });

  it('commits from any state: a never-started no-op experiment previews, and commits, a deletion of every rule', async () => {
    const live = await createPolicy('to-empty', [rule(10, 'allow'), rule(20)]);
    const noop = await createExperiment('to-empty', 'drop-all', []);
    const committed = await call('POST', `${P}/to-empty/experiments/drop-all:commit`, { etag: noop.etag });
    expect(committed.status).toBe(200);
    expect(committed.body.response).toMatchObject({ name: live.name });
    expect((await call('GET', `${P}/to-empty`)).body.rules ?? []).toEqual([]);
  });
});

describe('tenancy', () => {
  it("another team sees none of a project's policies, experiments, operations or history, and changes nothing", async () => {
    const live = await createPolicy('private', [rule(10, 'allow')]);
    const created = await call('POST', `${P}/private/experiments?experimentId=secret`, { firewallPolicy: { rules: [] } });
    const experiment = created.body.response;
    const asOther = (method: string, path: string, body?: unknown) => call(method, path, body, OTHER_TEAM_TOKEN);
    const attempts = [
      await asOther('GET', P),
      await asOther('GET', `${P}/private`),
      await asOther('GET', `${P}/private/events`),
      await asOther('GET', `${P}/private/experiments`),
      await asOther('GET', `${P}/private/experiments/secret`),
      await asOther('GET', `${P}/private/experiments/secret/events`),
      await asOther('GET', `/v1/${created.body.name}`),
      await asOther('PATCH', `${P}/private?updateMask=rules`, { rules: [] }),
      await asOther('DELETE', `${P}/private`),
      await asOther('POST', `${P}/private/experiments?experimentId=intruder`, { firewallPolicy: { rules: [] } }),
      await asOther('POST', `${P}/private/experiments/secret:commit`, { etag: experiment.etag }),
      await asOther('POST', `${P}/private/experiments/secret:startPreview`),
      await asOther('POST', `${P}/private/experiments/secret:stopPreview`),
      await asOther('PATCH', `${P}/private/experiments/secret?updateMask=firewallPolicy.rules`, { firewallPolicy: { rules: [] } }),
      await asOther('DELETE', `${P}/private/experiments/secret`),
      await asOther('POST', `${P}?firewallPolicyId=planted`, { rules: [] }),
    ];
    expect(attempts.map((a) => a.status)).toEqual(attempts.map(() => 404));
    expect(JSON.stringify(attempts.map((a) => a.body))).not.toContain('secret"');
    expect((await call('GET', `${P}/private`)).body).toEqual(live);
    expect((await call('GET', `${P}/private/experiments/secret`)).body.etag).toBe(experiment.etag);
    expect((await call('GET', `${P}/private/experiments/intruder`)).status).toBe(404);
    expect((await call('GET', `${P}/planted`)).status).toBe(404);
    // Its own project works for the same principal.
    expect((await asOther('POST', `/v1/projects/other/locations/global/firewallPolicies?firewallPolicyId=theirs`, {})).status).toBe(200);
  });
});

describe('commit', () => {
  it('copies the experiment into the live policy atomically and deletes the experiment; twice is 404', async () => {
    const live = await createPolicy('commit-me', [rule(10, 'allow')]);
    const experiment = await createExperiment('commit-me', 'candidate', [rule(3)]);
    const committed = await call('POST', `${P}/commit-me/experiments/candidate:commit`, { etag: experiment.etag, livePolicyEtag: live.etag });
    expect(committed.status).toBe(200);
    expect(committed.body.response).toMatchObject({ name: live.name, rules: [rule(3)] });
    expect(committed.body.response.etag).not.toBe(live.etag);
    expect((await call('GET', `${P}/commit-me`)).body.rules).toEqual([rule(3)]);
    expect((await call('GET', `${P}/commit-me/experiments/candidate`)).status).toBe(404);
    const twice = await call('POST', `${P}/commit-me/experiments/candidate:commit`, { etag: experiment.etag });
    expect(twice.status).toBe(404);
  });

  it('with a missing, stale or stale-parent etag changes nothing and leaves an ACTIVE preview ACTIVE', async () => {
    const live = await createPolicy('guarded', [rule(10, 'allow')]);
    await createExperiment('guarded', 'candidate', [rule(3)]);
    const active = (await call('POST', `${P}/guarded/experiments/candidate:startPreview`)).body.response;
    expect((await call('POST', `${P}/guarded/experiments/candidate:commit`, {})).status).toBe(400);
    expect((await call('POST', `${P}/guarded/experiments/candidate:commit`, { etag: 'stale' })).status).toBe(409);
    expect((await call('POST', `${P}/guarded/experiments/candidate:commit`, { etag: active.etag, livePolicyEtag: 'stale' })).status).toBe(409);
    expect((await call('GET', `${P}/guarded`)).body).toEqual(live);
    expect((await call('GET', `${P}/guarded/experiments/candidate`)).body.previewMetadata.state).toBe('ACTIVE');
  });

  it('50 concurrent commits of one experiment: exactly one succeeds and the policy gets one new version', async () => {
    await createPolicy('race');
    const experiment = await createExperiment('race', 'candidate', [rule(3)]);
    const results = await Promise.all(
      Array.from({ length: 50 }, () => call('POST', `${P}/race/experiments/candidate:commit`, { etag: experiment.etag })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status !== 200).every((r) => r.status === 409 || r.status === 404)).toBe(true);
    const history = (await call('GET', `${P}/race/events`)).body.events.map((e: { type: string }) => e.type);
    expect(history).toEqual(['PolicyCreated', 'PolicyUpdated']);
  });

  it('50 concurrent updates with the same etag: one wins', async () => {
    const live = await createPolicy('contended');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => call('PATCH', `${P}/contended?updateMask=rules`, { etag: live.etag, rules: [rule(i)] })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(49);
  });
});

describe('commands that decide on the state the service last saw', () => {
  const stateOf = (r: Response) => r.body.response?.previewMetadata?.state;

  it('50 concurrent experiment updates with the same etag: one wins, the rest are ABORTED', async () => {
    await createPolicy('contended-experiment');
    const experiment = await createExperiment('contended-experiment', 'candidate');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call('PATCH', `${P}/contended-experiment/experiments/candidate?updateMask=firewallPolicy.rules`, { etag: experiment.etag, firewallPolicy: { rules: [rule(i)] } }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(49);
    const history = (await call('GET', `${P}/contended-experiment/experiments/candidate/events`)).body.events.map((e: { type: string }) => e.type);
    expect(history).toEqual(['ExperimentCreated', 'ExperimentUpdated']);
  });

  it('a retried command (same requestId) acts once and answers the first Operation, even when retried at once', async () => {
    await createPolicy('retried-commands');
    const experiment = await createExperiment('retried-commands', 'once');
    const path = `${P}/retried-commands/experiments/once`;
    const starts = await Promise.all(Array.from({ length: 10 }, () => call('POST', `${path}:startPreview?requestId=start-1`)));
    expect(new Set(starts.map((r) => r.status))).toEqual(new Set([200]));
    expect(new Set(starts.map((r) => r.body.name)).size).toBe(1);
    const update = (etag: string) => call('PATCH', `${path}?updateMask=firewallPolicy.rules&requestId=update-1`, { etag, firewallPolicy: { rules: [rule(9)] } });
    const updated = await update(starts[0].body.response.etag);
    expect(updated.status).toBe(200);
    // The etag it sent is stale now, but the retry is answered with the first result.
    expect(await update(starts[0].body.response.etag)).toEqual(updated);
    expect((await call('POST', `${path}:startPreview?requestId=start-1`)).body).toEqual(starts[0].body);
    const history = (await call('GET', `${path}/events`)).body.events.map((e: { type: string; requestId?: string }) => [e.type, e.requestId]);
    expect(history).toEqual([['ExperimentCreated', undefined], ['PreviewStarted', 'start-1'], ['ExperimentUpdated', 'update-1']]);
    expect(experiment.etag).not.toBe(updated.body.response.etag);
  });

  it('a preview command after a cascade deleted the experiment is NOT_FOUND, not a conflict', async () => {
    await createPolicy('cascade-after-preview');
    await createExperiment('cascade-after-preview', 'watched');
    expect(stateOf(await call('POST', `${P}/cascade-after-preview/experiments/watched:startPreview`))).toBe('ACTIVE');
    expect((await call('DELETE', `${P}/cascade-after-preview`)).status).toBe(200);
    const stopped = await call('POST', `${P}/cascade-after-preview/experiments/watched:stopPreview`);
    expect(stopped.status).toBe(404);
    expect(stopped.body.error.status).toBe('NOT_FOUND');
  });

  it('with two replicas, every command acts on the latest state whichever replica the other one used', async () => {
    const port = await freePort();
    const replica = startServiceProcess('experiment-service', { NATS_NAMESPACE: namespace, DATABASE_SCHEMA: schema, DATABASE_POOL_SIZE: '4', PORT: String(port) });
    try {
      await eventually(async () => ((await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.ok ? true : undefined), {
        timeoutMs: 25_000,
        intervalMs: 200,
        what: 'second replica ready',
      });
      await createPolicy('replicated');
      await createExperiment('replicated', 'flip');
      const flip = `${P}/replicated/experiments/flip`;
      // Requests go to either replica at random; each replica holds the state it last saw,
      // which the other replica's commands make stale. A command also repeats the previous
      // one now and then: that changes nothing, and must say so from the latest state.
      const verbs = ['startPreview', 'stopPreview', 'stopPreview', 'startPreview', 'startPreview', 'stopPreview'];
      let expected: string | undefined;
      let changes = 1; // ExperimentCreated
      for (let i = 0; i < 60; i++) {
        const verb = verbs[i % verbs.length];
        const wanted = verb === 'startPreview' ? 'ACTIVE' : 'SUSPENDED';
        if (wanted !== expected) changes++;
        expected = wanted;
        const answer = await call('POST', `${flip}:${verb}`);
        expect({ i, status: answer.status, state: stateOf(answer) }).toEqual({ i, status: 200, state: expected });
        expect((await call('GET', flip)).body.previewMetadata.state).toBe(expected);
      }
      const history = (await call('GET', `${flip}/events`)).body.events;
      expect(history).toHaveLength(changes);
    } finally {
      await replica.stop();
    }
  }, 60_000);
});

describe('domain events on JetStream', () => {
  it('publishes every event once, in order, with the state after it', async () => {
    await createPolicy('published');
    await createExperiment('published', 'exp');
    await call('POST', `${P}/published/experiments/exp:startPreview`);
    const stream = `${namespace}_${EXPERIMENT_EVENTS_STREAM}`;
    const codec = JSONCodec<{ id: string; type: string; version: number; state?: { previewMetadata?: { state: string } } }>();
    const events = await eventually(async () => {
      const jsm = await nc.jetstreamManager();
      const info = await jsm.streams.info(stream);
      const found = [];
      for (let seq = 1; seq <= info.state.last_seq; seq++) {
        const message = await jsm.streams.getMessage(stream, { seq });
        if (message.subject.endsWith('.published.exp')) found.push(codec.decode(message.data));
      }
      return found.length >= 2 ? found : undefined;
    });
    expect(events.map((e) => [e.type, e.version])).toEqual([['ExperimentCreated', 1], ['PreviewStarted', 2]]);
    expect(events[1].state?.previewMetadata?.state).toBe('ACTIVE');
    expect(new Set(events.map((e) => e.id)).size).toBe(2);
  });
});

describe('static analysis (experiment.v1 1.3.0)', () => {
  const ssh = { priority: 100, direction: 'INGRESS', action: 'allow', match: { srcIpRanges: ['10.0.0.0/8', '2001:db8::/32'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] } };
  const IMPLIED_DENY = { action: 'deny', rulePriority: null, implied: true };

  it('returns the analysis at create and update, keeps it through other commands, and serves it on get and list', async () => {
    const live = await createPolicy('analysed', [ssh]);
    const widened = { ...ssh, priority: 200, match: { srcIpRanges: ['2001:db8::/31'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22', '8000-8080'] }] } };
    const shadowed = { ...ssh, priority: 300, match: { srcIpRanges: ['10.1.0.0/16'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] } };
    const created = await createExperiment('analysed', 'widen', [ssh, widened, shadowed]);
    const expected = {
      livePolicyEtag: live.etag,
      shadowedRules: [{ priority: 300, direction: 'INGRESS', coveredBy: [100] }],
      differingRegions: [
        {
          direction: 'INGRESS',
          srcIpRanges: ['2001:db8::/32'],
          destIpRanges: ['0.0.0.0/0', '::/0'],
          layer4Configs: [{ ipProtocols: ['tcp'], ports: ['8000-8080'] }],
          liveVerdict: IMPLIED_DENY,
          experimentVerdict: { action: 'allow', rulePriority: 200, implied: false },
        },
        {
          direction: 'INGRESS',
          srcIpRanges: ['2001:db9::/32'],
          destIpRanges: ['0.0.0.0/0', '::/0'],
          layer4Configs: [{ ipProtocols: ['tcp'], ports: ['22', '8000-8080'] }],
          liveVerdict: IMPLIED_DENY,
          experimentVerdict: { action: 'allow', rulePriority: 200, implied: false },
        },
      ],
      regionsOmitted: 0,
      complete: true,
    };
    expect(created.analysis).toEqual(expected);

    // Other commands rewrite the experiment, not its analysis.
    expect((await call('POST', `${P}/analysed/experiments/widen:startPreview`)).status).toBe(200);
    const read = await call('GET', `${P}/analysed/experiments/widen`);
    expect(read.body.previewMetadata.state).toBe('ACTIVE');
    expect(read.body.analysis).toEqual(expected);
    expect((await call('GET', `${P}/analysed/experiments`)).body.experiments[0].analysis).toEqual(expected);

    // An update compares again, with the live policy as it is now; sending the analysis back is accepted and ignored.
    const moved = await call('PATCH', `${P}/analysed?updateMask=rules`, { etag: live.etag, rules: [ssh, widened] });
    expect(moved.status).toBe(200);
    const updated = await call('PATCH', `${P}/analysed/experiments/widen?updateMask=firewallPolicy.rules`, { firewallPolicy: { rules: [ssh] }, analysis: expected });
    expect(updated.status).toBe(200);
    const again = { livePolicyEtag: moved.body.etag, shadowedRules: [], differingRegions: [expected.differingRegions[0], expected.differingRegions[1]].map((region) => ({
      ...region,
      liveVerdict: region.experimentVerdict,
      experimentVerdict: IMPLIED_DENY,
    })), regionsOmitted: 0, complete: true };
    expect(updated.body.response.analysis).toEqual(again);
    expect((await call('GET', `${P}/analysed/experiments/widen`)).body.analysis).toEqual(again);
  });
});
