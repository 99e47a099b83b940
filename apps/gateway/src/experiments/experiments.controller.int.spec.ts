import { P, experimentsSystem, rule } from '../../test/experiments-system';

const { call, createExperiment, createPolicy } = experimentsSystem();

describe('experiments: create, get, update, delete, preview and commit, with their errors', () => {
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
      history.body.events.map((e: { type: string; commandRequestId: string; actor: string }) => [
        e.type,
        e.commandRequestId,
        e.actor,
      ]),
    ).toEqual([['ExperimentCreated', 'req-123', 'test-admin']]);
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
