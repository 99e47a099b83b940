import { EXPERIMENT_EVENTS_STREAM } from '@rollout/contracts';
import { eventually } from '@rollout/testing/kit';
import { JSONCodec } from 'nats';
import { OTHER_TEAM_TOKEN, P, experimentsSystem, rule } from '../../test/experiments-system';

const system = experimentsSystem();
const { call, createExperiment, createPolicy } = system;

describe('tenancy', () => {
  it("another team sees none of a project's policies, experiments, operations or history, and changes nothing", async () => {
    const live = await createPolicy('private', [rule(10, 'allow')]);
    const created = await call('POST', `${P}/private/experiments?experimentId=secret`, {
      firewallPolicy: { rules: [] },
    });
    const experiment = created.body.response;
    const asOther = (method: string, path: string, body?: unknown) =>
      call(method, path, body, OTHER_TEAM_TOKEN);
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
      await asOther('POST', `${P}/private/experiments?experimentId=intruder`, {
        firewallPolicy: { rules: [] },
      }),
      await asOther('POST', `${P}/private/experiments/secret:commit`, { etag: experiment.etag }),
      await asOther('POST', `${P}/private/experiments/secret:startPreview`),
      await asOther('POST', `${P}/private/experiments/secret:stopPreview`),
      await asOther('PATCH', `${P}/private/experiments/secret?updateMask=firewallPolicy.rules`, {
        firewallPolicy: { rules: [] },
      }),
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
    expect(
      (
        await asOther(
          'POST',
          `/v1/projects/other/locations/global/firewallPolicies?firewallPolicyId=theirs`,
          {},
        )
      ).status,
    ).toBe(200);
  });
});

describe('domain events on JetStream', () => {
  it('publishes every event once, in order, with the state after it', async () => {
    await createPolicy('published');
    await createExperiment('published', 'exp');
    await call('POST', `${P}/published/experiments/exp:startPreview`);
    const stream = `${system.namespace}_${EXPERIMENT_EVENTS_STREAM}`;
    const codec = JSONCodec<{
      id: string;
      type: string;
      version: number;
      state?: { previewMetadata?: { state: string } };
    }>();
    const events = await eventually(async () => {
      const jsm = await system.nc.jetstreamManager();
      const info = await jsm.streams.info(stream);
      const found = [];
      for (let seq = 1; seq <= info.state.last_seq; seq++) {
        const message = await jsm.streams.getMessage(stream, { seq });
        if (message.subject.endsWith('.published.exp')) found.push(codec.decode(message.data));
      }
      return found.length >= 2 ? found : undefined;
    });
    expect(events.map((e) => [e.type, e.version])).toEqual([
      ['ExperimentCreated', 1],
      ['PreviewStarted', 2],
    ]);
    expect(events[1].state?.previewMetadata?.state).toBe('ACTIVE');
    expect(new Set(events.map((e) => e.id)).size).toBe(2);
  });
});

describe('static analysis (experiment.v1 1.3.0)', () => {
  const ssh = {
    priority: 100,
    direction: 'INGRESS',
    action: 'allow',
    match: {
      srcIpRanges: ['10.0.0.0/8', '2001:db8::/32'],
      layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }],
    },
  };
  const IMPLIED_DENY = { action: 'deny', rulePriority: null, implied: true };

  it('returns the analysis at create and update, keeps it through other commands, and serves it on get and list', async () => {
    const live = await createPolicy('analysed', [ssh]);
    const widened = {
      ...ssh,
      priority: 200,
      match: {
        srcIpRanges: ['2001:db8::/31'],
        layer4Configs: [{ ipProtocol: 'tcp', ports: ['22', '8000-8080'] }],
      },
    };
    const shadowed = {
      ...ssh,
      priority: 300,
      match: {
        srcIpRanges: ['10.1.0.0/16'],
        layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }],
      },
    };
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
    expect((await call('GET', `${P}/analysed/experiments`)).body.experiments[0].analysis).toEqual(
      expected,
    );

    // An update compares again, with the live policy as it is now; sending the analysis back is accepted and ignored.
    const moved = await call('PATCH', `${P}/analysed?updateMask=rules`, {
      etag: live.etag,
      rules: [ssh, widened],
    });
    expect(moved.status).toBe(200);
    const updated = await call(
      'PATCH',
      `${P}/analysed/experiments/widen?updateMask=firewallPolicy.rules`,
      { firewallPolicy: { rules: [ssh] }, analysis: expected },
    );
    expect(updated.status).toBe(200);
    const again = {
      livePolicyEtag: moved.body.etag,
      shadowedRules: [],
      differingRegions: [expected.differingRegions[0], expected.differingRegions[1]].map(
        (region) => ({
          ...region,
          liveVerdict: region.experimentVerdict,
          experimentVerdict: IMPLIED_DENY,
        }),
      ),
      regionsOmitted: 0,
      complete: true,
    };
    expect(updated.body.response.analysis).toEqual(again);
    expect((await call('GET', `${P}/analysed/experiments/widen`)).body.analysis).toEqual(again);
  });
});
