import {
  P,
  call,
  createExperiment,
  createPolicy,
  idsOf,
  rule,
  startExperimentsSystem,
  stopExperimentsSystem,
} from '../../test/experiments-system';

beforeAll(startExperimentsSystem, 60_000);
afterAll(stopExperimentsSystem);

describe('live firewall policies', () => {
  it('creates, reads, updates with the etag, and refuses a stale etag', async () => {
    const created = await createPolicy('web', [rule(10, 'allow')]);
    expect(created).toMatchObject({
      name: 'projects/acme/locations/global/firewallPolicies/web',
      displayName: 'web',
      rules: [rule(10, 'allow')],
    });
    expect((await call('GET', `${P}/web`)).body).toEqual(created);
    const updated = await call('PATCH', `${P}/web?updateMask=rules`, {
      etag: created.etag,
      rules: [rule(20)],
    });
    expect(updated.status).toBe(200);
    expect(updated.body.rules).toEqual([rule(20)]);
    expect(updated.body.etag).not.toBe(created.etag);
    const stale = await call('PATCH', `${P}/web?updateMask=rules`, {
      etag: created.etag,
      rules: [],
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error.status).toBe('ABORTED');
    expect((await call('POST', `${P}?firewallPolicyId=web`, {})).status).toBe(409);
  });

  it('names the bad field of an invalid policy or id', async () => {
    const dup = await call('POST', `${P}?firewallPolicyId=dup`, { rules: [rule(1), rule(1)] });
    expect(dup.status).toBe(400);
    expect(dup.body.error.details[0].fieldViolations[0].field).toBe(
      'firewallPolicy.rules[1].priority',
    );
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
    const created = await call('POST', `${P}/api/experiments?experimentId=lockdown`, {
      firewallPolicy: { rules: [rule(5)] },
      annotations: { ticket: 'SEC-1' },
    });
    expect(created.body).toMatchObject({
      done: true,
      metadata: { verb: 'create' },
      response: {
        name: `projects/acme/locations/global/firewallPolicies/api/experiments/lockdown`,
        annotations: { ticket: 'SEC-1' },
      },
    });
    expect(created.body.response.previewMetadata).toBeUndefined();
    expect(created.body.response.firewallPolicy.name).toBe(
      'projects/acme/locations/global/firewallPolicies/api',
    );
    const operation = await call('GET', `/v1/${created.body.name}`);
    expect(operation.body).toEqual(created.body);
  });

  it('refuses a policy name other than the live one, and a missing parent', async () => {
    const other = await call('POST', `${P}/api/experiments?experimentId=bad`, {
      firewallPolicy: { name: 'projects/acme/locations/global/firewallPolicies/other', rules: [] },
    });
    expect(other.status).toBe(400);
    expect((await call('POST', `${P}/nope/experiments?experimentId=x`, {})).status).toBe(404);
  });

  it('previews: ACTIVE with the log prefix, SUSPENDED when stopped or when updated', async () => {
    await createExperiment('api', 'preview');
    const started = await call('POST', `${P}/api/experiments/preview:startPreview`);
    expect(started.status).toBe(200);
    expect(started.body.response.previewMetadata).toMatchObject({
      state: 'ACTIVE',
      logPrefix: 'FirewallPolicyPreviewLog',
      startTime: expect.any(String),
    });
    const stopped = await call('POST', `${P}/api/experiments/preview:stopPreview`);
    expect(stopped.body.response.previewMetadata).toMatchObject({
      state: 'SUSPENDED',
      stopTime: expect.any(String),
    });
    await call('POST', `${P}/api/experiments/preview:startPreview`);
    const updated = await call(
      'PATCH',
      `${P}/api/experiments/preview?updateMask=firewallPolicy.rules`,
      { firewallPolicy: { rules: [rule(7)] } },
    );
    expect(updated.body.response.previewMetadata.state).toBe('SUSPENDED');
    expect(updated.body.response.firewallPolicy.rules).toEqual([rule(7)]);
    const rename = await call(
      'PATCH',
      `${P}/api/experiments/preview?updateMask=firewallPolicy.name`,
      { firewallPolicy: { name: 'projects/acme/locations/global/firewallPolicies/x' } },
    );
    expect(rename.status).toBe(400);
  });

  it('lists only ACTIVE experiments with the filter', async () => {
    await createPolicy('filtered');
    await createExperiment('filtered', 'on');
    await createExperiment('filtered', 'off');
    await call('POST', `${P}/filtered/experiments/on:startPreview`);
    for (const filter of ['previewMetadata.state = ACTIVE', 'preview_metadata.state = ACTIVE']) {
      const listed = await call(
        'GET',
        `${P}/filtered/experiments?filter=${encodeURIComponent(filter)}`,
      );
      expect(
        listed.body.experiments.map((e: { name: string }) => e.name.split('/').at(-1)),
      ).toEqual(['on']);
    }
    const not = await call(
      'GET',
      `${P}/filtered/experiments?filter=${encodeURIComponent('previewMetadata.state != ACTIVE')}`,
    );
    expect(not.body.experiments.map((e: { name: string }) => e.name.split('/').at(-1))).toEqual([
      'off',
    ]);
    expect(
      (
        await call(
          'GET',
          `${P}/filtered/experiments?filter=${encodeURIComponent("name = 'x' OR 1=1")}`,
        )
      ).status,
    ).toBe(400);
  });

  it('refuses the 11th experiment of a policy', async () => {
    await createPolicy('crowded');
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call('POST', `${P}/crowded/experiments?experimentId=e${i}`, {
          firewallPolicy: { rules: [] },
        }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    expect(results.filter((r) => r.status === 429).map((r) => r.body.error.status)).toEqual([
      'RESOURCE_EXHAUSTED',
      'RESOURCE_EXHAUSTED',
    ]);
  });

  it('does a retried request (same requestId) once, answering the first result', async () => {
    await createPolicy('retry');
    const first = await call('POST', `${P}/retry/experiments?experimentId=once&requestId=req-123`, {
      firewallPolicy: { rules: [] },
    });
    const again = await call('POST', `${P}/retry/experiments?experimentId=once&requestId=req-123`, {
      firewallPolicy: { rules: [] },
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const history = await call('GET', `${P}/retry/experiments/once/events`);
    expect(
      history.body.events.map((e: { type: string; requestId: string; actor: string }) => [
        e.type,
        e.requestId,
        e.actor,
      ]),
    ).toEqual([['ExperimentCreated', 'req-123', 'test-admin']]);
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
    const renamed = await call(
      'PATCH',
      `${P}/lifecycle?updateMask=displayName&requestId=rename-1`,
      { displayName: 'Lifecycle', etag: live.etag, createTime: '1999-01-01T00:00:00Z' },
    );
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({
      displayName: 'Lifecycle',
      rules: [rule(10, 'allow')],
      createTime: live.createTime,
    });
    const history = (await call('GET', `${P}/lifecycle/events`)).body.events;
    expect(
      history.map((e: { type: string; version: number; actor: string }) => [
        e.type,
        e.version,
        e.actor,
      ]),
    ).toEqual([
      ['PolicyCreated', 1, 'test-admin'],
      ['PolicyUpdated', 2, 'test-admin'],
    ]);
    expect(history[1]).toMatchObject({ requestId: 'rename-1', time: expect.any(String) });
    expect(
      (await call('DELETE', `${P}/lifecycle?etag=${encodeURIComponent(renamed.body.etag)}`)).status,
    ).toBe(200);
    expect((await call('GET', `${P}/lifecycle/events`)).body.events.at(-1).type).toBe(
      'PolicyDeleted',
    );
  });

  it('experiment: get, annotations, etags, delete as an Operation, history', async () => {
    await createPolicy('exp-methods');
    const created = await createExperiment('exp-methods', 'candidate');
    // The Operation's response carries its @type (AIP-151); the resource itself does not.
    const { '@type': type, ...resource } = created;
    expect(type).toBe('type.googleapis.com/policyrollout.experiment.v1.FirewallPolicyExperiment');
    expect((await call('GET', `${P}/exp-methods/experiments/candidate`)).body).toEqual(resource);
    expect((await call('GET', `${P}/exp-methods/experiments/absent`)).status).toBe(404);
    expect(
      (
        await call('POST', `${P}/exp-methods/experiments?experimentId=candidate`, {
          firewallPolicy: { rules: [] },
        })
      ).status,
    ).toBe(409);
    expect(
      (
        await call('POST', `${P}/exp-methods/experiments?experimentId=Not_An_Id`, {
          firewallPolicy: { rules: [] },
        })
      ).body.error.details[0].fieldViolations[0].field,
    ).toBe('experimentId');

    const tooMany = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v']));
    const refused = await call(
      'PATCH',
      `${P}/exp-methods/experiments/candidate?updateMask=annotations`,
      { annotations: tooMany },
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.details[0].fieldViolations[0].field).toBe('annotations');
    const annotated = await call(
      'PATCH',
      `${P}/exp-methods/experiments/candidate?updateMask=annotations`,
      { annotations: { owner: 'netsec' }, etag: created.etag },
    );
    expect(annotated.body.response).toMatchObject({
      annotations: { owner: 'netsec' },
      firewallPolicy: created.firewallPolicy,
    });
    expect(
      (
        await call('PATCH', `${P}/exp-methods/experiments/candidate?updateMask=annotations`, {
          annotations: {},
          etag: created.etag,
        })
      ).status,
    ).toBe(409);

    expect(
      (
        await call(
          'DELETE',
          `${P}/exp-methods/experiments/candidate?etag=${encodeURIComponent(created.etag)}`,
        )
      ).status,
    ).toBe(409);
    const deleted = await call(
      'DELETE',
      `${P}/exp-methods/experiments/candidate?etag=${encodeURIComponent(annotated.body.response.etag)}`,
    );
    expect(deleted.body).toMatchObject({ done: true, metadata: { verb: 'delete' } });
    expect((await call('GET', `/v1/${deleted.body.name}`)).body).toEqual(deleted.body);
    expect((await call('GET', `${P}/exp-methods/experiments/candidate`)).status).toBe(404);
    expect((await call('GET', '/v1/operations/00000000-0000-4000-8000-000000000000')).status).toBe(
      404,
    );
  });

  it('startPreview sets a new startTime every time it turns ACTIVE; stopPreview sets stopTime', async () => {
    await createPolicy('times');
    await createExperiment('times', 'e');
    const first = (await call('POST', `${P}/times/experiments/e:startPreview`)).body.response
      .previewMetadata;
    const stopped = (await call('POST', `${P}/times/experiments/e:stopPreview`)).body.response
      .previewMetadata;
    expect(stopped).toMatchObject({ state: 'SUSPENDED', startTime: first.startTime });
    expect(Date.parse(stopped.stopTime)).toBeGreaterThanOrEqual(Date.parse(first.startTime));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = (await call('POST', `${P}/times/experiments/e:startPreview`)).body.response
      .previewMetadata;
    expect(second.state).toBe('ACTIVE');
    expect(Date.parse(second.startTime)).toBeGreaterThan(Date.parse(first.startTime));
    const history = (await call('GET', `${P}/times/experiments/e/events`)).body.events.map(
      (e: { type: string }) => e.type,
    );
    expect(history).toEqual([
      'ExperimentCreated',
      'PreviewStarted',
      'PreviewStopped',
      'PreviewStarted',
    ]);
  });

  it('lists every experiment exactly once across pages', async () => {
    await createPolicy('paged');
    const ids = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7'];
    for (const id of ids) await createExperiment('paged', id);
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = await call(
        'GET',
        `${P}/paged/experiments?pageSize=3${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`,
      );
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
    const committed = await call('POST', `${P}/to-empty/experiments/drop-all:commit`, {
      etag: noop.etag,
    });
    expect(committed.status).toBe(200);
    expect(committed.body.response).toMatchObject({ name: live.name });
    expect((await call('GET', `${P}/to-empty`)).body.rules ?? []).toEqual([]);
  });
});
