import {
  EXPERIMENT_SUBJECTS,
  ListPreviewFlowsRequest,
  PREVIEW_SUBJECTS,
  StatusError,
} from '@rollout/contracts';
import { JsonBody } from '@rollout/testing/kit';
import { OTHER_TEAM_TOKEN } from '../../test/preview-system';
import {
  configuration,
  flow,
  name,
  notFound,
  path,
  previewStandIns,
} from '../../test/preview-stand-ins';

describe('previewFlows, deleted experiments and the deprecated previewLogs, against stand-in services', () => {
  const { answers, askedOn, get, sample, url } = previewStandIns();

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

    const document: JsonBody = await (await fetch(url('/docs/openapi.json'))).json();
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
