import { RunningSystem, launch } from '@rollout/launcher';
import { TEST_NATS_URL, eventually } from '@rollout/testing/kit';
import { JSONCodec, connect } from 'nats';
import { DIST, gatewayApi, isolatedSettings, removeRun } from './support';

/** AIP-236 end to end: the built system, started as `npm start` does, driven over HTTP. */
describe('previewing and committing a firewall policy change', () => {
  let system: RunningSystem;
  let database: string;
  let namespace: string;
  const P = '/v1/projects/acme/locations/global/firewallPolicies';
  const rule = (priority: number, action: string) => ({
    priority,
    direction: 'INGRESS',
    action,
    match: {
      srcIpRanges: ['203.0.113.0/24', '2001:db8::/32'],
      layer4Configs: [{ ipProtocol: 'tcp', ports: ['443'] }],
    },
  });
  const api = (method: string, path: string, body?: unknown) =>
    gatewayApi(system)(method, path, body);

  beforeAll(async () => {
    const isolated = await isolatedSettings();
    ({ database, namespace } = isolated);
    system = await launch({
      settings: isolated.settings,
      distRoot: DIST,
      extraEnv: { NATS_NAMESPACE: namespace, LOG_LEVEL: 'silent' },
      log: () => undefined,
    });
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
    // The run's database and its NATS namespace (named alike): streams and buckets included.
    if (database) await removeRun(database);
  }, 60_000);

  it('creates, previews, commits, and publishes the events for the evaluator', async () => {
    const live = await api('POST', `${P}?firewallPolicyId=edge`, {
      displayName: 'edge',
      rules: [rule(100, 'allow')],
    });
    expect(live.status).toBe(200);
    const created = await api('POST', `${P}/edge/experiments?experimentId=block-range`, {
      firewallPolicy: { rules: [rule(100, 'deny')] },
    });
    expect(created.body).toMatchObject({
      done: true,
      response: { firewallPolicy: { name: live.body.name } },
    });
    const started = await api('POST', `${P}/edge/experiments/block-range:startPreview`);
    expect(started.body.response.previewMetadata).toMatchObject({
      state: 'ACTIVE',
      logPrefix: 'FirewallPolicyPreviewLog',
    });
    const active = await api(
      'GET',
      `${P}/edge/experiments?filter=${encodeURIComponent('previewMetadata.state = ACTIVE')}`,
    );
    expect(active.body.experiments).toHaveLength(1);

    const committed = await api('POST', `${P}/edge/experiments/block-range:commit`, {
      etag: started.body.response.etag,
      livePolicyEtag: live.body.etag,
    });
    expect(committed.status).toBe(200);
    expect((await api('GET', `${P}/edge`)).body).toMatchObject({
      name: live.body.name,
      rules: [rule(100, 'deny')],
    });
    expect(
      (
        await api('POST', `${P}/edge/experiments/block-range:commit`, {
          etag: started.body.response.etag,
        })
      ).status,
    ).toBe(404);
    const operation = await api('GET', `/v1/${committed.body.name}`);
    expect(operation.body).toEqual(committed.body);

    // What the evaluator consumes: the stream holds the events with the state after each.
    const nc = await connect({ servers: TEST_NATS_URL });
    try {
      const jsm = await nc.jetstreamManager();
      const codec = JSONCodec<{ type: string; subject: string; state?: { rules?: unknown[] } }>();
      const stream = `${namespace}_EXPERIMENT_EVENTS`;
      const types = await eventually(async () => {
        const info = await jsm.streams.info(stream);
        const found: string[] = [];
        for (let seq = 1; seq <= info.state.last_seq; seq++)
          found.push(codec.decode((await jsm.streams.getMessage(stream, { seq })).data).type);
        return found.length >= 5 ? found : undefined;
      });
      expect(types).toEqual([
        'PolicyCreated',
        'ExperimentCreated',
        'PreviewStarted',
        'ExperimentCommitted',
        'PolicyUpdated',
      ]);
      const last = await jsm.streams.getMessage(stream, {
        last_by_subj: `${namespace}.experiment.v1.events.policy.acme.global.edge`,
      });
      expect(codec.decode(last.data).state?.rules).toEqual([rule(100, 'deny')]);
    } finally {
      await nc.close();
    }
  });
});
