import type { INestApplication } from '@nestjs/common';
import { FirewallRule, PREVIEW_SUBJECTS, PreviewReport } from '@rollout/contracts';
import { TEST_NATS_URL, eventually } from '@rollout/testing/kit';
import { NatsConnection, connect } from 'nats';
import { Isolation, cleanUp, isolation, rpcClient, startEvaluator } from '../../test/evaluator-app';
import { ExperimentWorld } from '../../test/experiment-world';
import { publishTraffic, settledUpTo, trafficEvent } from '../../test/traffic-publishing';

const rule = (
  priority: number,
  action: 'allow' | 'deny',
  match: FirewallRule['match'],
): FirewallRule => ({ priority, direction: 'INGRESS', action, match });
const LIVE = [
  rule(100, 'allow', {
    srcIpRanges: ['10.0.0.0/8'],
    layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }],
  }),
];
const EXPERIMENT = [
  rule(10, 'deny', {
    srcIpRanges: ['10.0.1.0/24'],
    layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }],
  }),
  // Opens HTTP from 192.168.0.0/16: a change no previewed connection will exercise.
  rule(20, 'allow', {
    srcIpRanges: ['192.168.0.0/16'],
    layer4Configs: [{ ipProtocol: 'tcp', ports: ['80'] }],
  }),
  // Shadowed by rule 10: it can never decide.
  rule(30, 'deny', {
    srcIpRanges: ['10.0.1.0/25'],
    layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }],
  }),
  ...LIVE,
];

/** The experiment's static analysis against the previewed traffic: what no connection tested. */
describe('the preview report: coverage', () => {
  let iso: Isolation;
  let nc: NatsConnection;
  let app: INestApplication;
  let world: ExperimentWorld;

  beforeAll(async () => {
    iso = isolation();
    nc = await connect({ servers: TEST_NATS_URL });
    world = new ExperimentWorld(nc, iso);
    await world.createBucket();
    await world.policy('web', LIVE);
    await world.experiment('web', 'tighten', EXPERIMENT, 'ACTIVE');
    app = await startEvaluator(iso);
  });

  afterAll(async () => {
    await app?.close();
    await nc?.close();
    await cleanUp(iso);
  });

  it('lists the differing regions no previewed connection touched, the rules that decided nothing and the shadowed ones', async () => {
    const seq = await publishTraffic(nc, iso, 'web', [
      trafficEvent(1, { srcIp: '10.0.1.5', destPort: 22 }),
      trafficEvent(2, { srcIp: '10.0.2.5', destPort: 22 }),
    ]);
    await eventually(() => settledUpTo(nc, iso, seq), { what: 'settled' });
    const report = await rpcClient(nc, iso).request<PreviewReport>(
      PREVIEW_SUBJECTS.previewReport,
      { name: world.experimentName('web', 'tighten') },
      { timeoutMs: 5_000 },
    );
    const { coverage } = report.configurations[0];
    expect(coverage).toMatchObject({
      complete: true,
      differingRegions: 2,
      regionsOmitted: 0,
      exact: true,
      unmatchedExperimentRules: [20, 30],
      shadowedRules: [30],
    });
    expect(coverage?.untouchedRegions).toEqual([
      expect.objectContaining({
        direction: 'INGRESS',
        srcIpRanges: ['192.168.0.0/16'],
        layer4Configs: [{ ipProtocols: ['tcp'], ports: ['80'] }],
        liveVerdict: { action: 'deny', rulePriority: null, implied: true },
        experimentVerdict: { action: 'allow', rulePriority: 20, implied: false },
      }),
    ]);
  });
});
