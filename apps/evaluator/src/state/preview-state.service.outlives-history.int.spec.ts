import {
  EXPERIMENT_EVENTS_STREAM,
  EXPERIMENT_SUBJECTS,
  FirewallRule,
  PREVIEW_SUBJECTS,
  PreviewReport,
} from '@rollout/contracts';
import {
  eventually,
  removeTestResources,
  startServiceProcess,
  uniqueName,
} from '@rollout/testing/kit';
import { evaluatorSystem } from '../../test/evaluator-system';
import { deadLetters } from '../../test/readouts';
import { publishTraffic, settledUpTo, trafficEvent } from '../../test/traffic-publishing';

const rule = (priority: number, action: 'allow' | 'deny', ports?: string[]): FirewallRule => ({
  priority,
  direction: 'INGRESS',
  action,
  match: {
    srcIpRanges: ['0.0.0.0/0'],
    ...(ports ? { layer4Configs: [{ ipProtocol: 'tcp', ports }] } : {}),
  },
});

/**
 * History has limits, current state has none: a live policy and an ACTIVE experiment nobody
 * touched for longer than EXPERIMENT_EVENTS keeps anything are still previewed after the
 * evaluator restarts, because it reads them from the EXPERIMENT_STATE bucket.
 */
describe('a policy and an experiment older than the history stream keeps', () => {
  const system = evaluatorSystem({
    bucket: 'none',
    eachTest: true,
    given: async ({ iso, onClose }) => {
      const schema = uniqueName('it_');
      const experiments = startServiceProcess('experiment-service', {
        NATS_NAMESPACE: iso.namespace,
        DATABASE_SCHEMA: schema,
        EXPERIMENT_EVENTS_MAX_AGE_MS: '2000',
      });
      onClose(async () => {
        await experiments.stop();
        await removeTestResources({ schema });
      });
    },
  });

  it('are still evaluated, exactly, by an evaluator restarted after the history aged out', async () => {
    const { nc, iso, rpc } = system;
    const call = (subject: string, request: object) =>
      rpc.request(subject, { actor: 'test', ...request }, { timeoutMs: 5_000 });
    const policy = 'projects/acme/locations/global/firewallPolicies/web';
    await eventually(
      () =>
        call(EXPERIMENT_SUBJECTS.createPolicy, {
          parent: 'projects/acme/locations/global',
          firewallPolicyId: 'web',
          firewallPolicy: { rules: [rule(100, 'allow')] },
        }).then(() => true),
      { timeoutMs: 30_000, intervalMs: 250, what: 'the experiment-service serving' },
    );
    await call(EXPERIMENT_SUBJECTS.createExperiment, {
      parent: policy,
      experimentId: 'no-ssh',
      experiment: { firewallPolicy: { rules: [rule(10, 'deny', ['22']), rule(100, 'allow')] } },
    });
    await call(EXPERIMENT_SUBJECTS.startPreview, { name: `${policy}/experiments/no-ssh` });
    await system.start();
    await system.stop();

    const jsm = await nc.jetstreamManager();
    await eventually(
      async () =>
        (await jsm.streams.info(iso.ns.stream(EXPERIMENT_EVENTS_STREAM))).state.messages === 0
          ? true
          : undefined,
      {
        timeoutMs: 15_000,
        what: 'the history aged out',
      },
    );

    await system.start();
    const events = Array.from({ length: 300 }, (_, i) =>
      trafficEvent(i, { protocol: 'tcp', destPort: i % 3 === 0 ? 22 : 443 }),
    );
    const seq = await publishTraffic(nc, iso, 'web', events);
    await eventually(() => settledUpTo(nc, iso, seq), {
      timeoutMs: 20_000,
      what: 'the traffic settled',
    });
    expect(await deadLetters(nc, iso)).toEqual([]);
    const report = await rpc.request<PreviewReport>(
      PREVIEW_SUBJECTS.previewReport,
      { name: `${policy}/experiments/no-ssh` },
      { timeoutMs: 5_000 },
    );
    expect(report.configurations).toMatchObject([
      { evaluated: 300, changed: 100, allowToDeny: 100, unchangedAllow: 200 },
    ]);
  }, 90_000);
});
