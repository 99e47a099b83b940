import { PreviewLogRecord } from '@rollout/contracts';
import { eventually } from '@rollout/testing/kit';
import { OTHER_TEAM_TOKEN, P, allowSsh, denyNet, previewSystem } from '../../test/preview-system';

const { call, sendTraffic, trafficEvent: event } = previewSystem();

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
  const experiment = `${P}/edge/experiments/block-ssh`;

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
      event('10.0.1.8', { destPort: 443 }),
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
