import {
  EXPERIMENT_SUBJECTS,
  FirewallRule,
  PREVIEW_SUBJECTS,
  PreviewReport,
  TRAFFIC_STREAM,
  TrafficEvent,
  trafficSubject,
} from '@rollout/contracts';
import type { NatsRpcClient } from '@rollout/platform/nats';
import {
  NatsCluster,
  ServiceProcess,
  eventually,
  freePorts,
  removeTestResources,
  startNatsCluster,
  startServiceProcess,
  uniqueName,
} from '@rollout/testing/kit';
import { NatsConnection, connect } from 'nats';
import { TRAFFIC_DURABLE } from '@rollout/contracts';
import { Isolation, evaluatorEnv, isolation, rpcClient } from '../../test/evaluator-app';
import { trafficEvent } from '../../test/traffic-publishing';

const TOTAL = 50_000;
const POLICY = 'projects/acme/locations/global/firewallPolicies/web';
const rule = (priority: number, action: 'allow' | 'deny', ports?: string[]): FirewallRule => ({
  priority,
  direction: 'INGRESS',
  action,
  match: {
    srcIpRanges: ['0.0.0.0/0'],
    ...(ports ? { layer4Configs: [{ ipProtocol: 'tcp', ports }] } : {}),
  },
});
/** Every fourth event goes to port 22, which `no-ssh` denies; `no-web` denies 443 instead. */
const event = (n: number): TrafficEvent =>
  trafficEvent(n, { id: `cluster-${n}`, destPort: n % 4 === 0 ? 22 : 443 });

/**
 * A preview on a 3-node JetStream cluster (every stream and bucket on 3 replicas) survives
 * losing the node that leads TRAFFIC in the middle of 50,000 events: the totals are exact, a
 * startPreview issued while the node is down takes effect, and no service is restarted.
 */
describe('a preview on a NATS cluster that loses a node', () => {
  let cluster: NatsCluster;
  let iso: Isolation;
  let nc: NatsConnection;
  let rpc: NatsRpcClient;
  const schemas = { experiments: uniqueName('it_'), evaluator: uniqueName('it_') };
  const services: ServiceProcess[] = [];
  let evaluatorPorts: number[];

  beforeAll(async () => {
    cluster = await startNatsCluster(3);
    iso = isolation();
    nc = await connect({ servers: cluster.urls, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
    rpc = rpcClient(nc, iso);
    const onCluster = { NATS_URL: cluster.urls.join(','), NATS_STREAM_REPLICAS: '3' };
    services.push(
      startServiceProcess('experiment-service', {
        ...onCluster,
        NATS_NAMESPACE: iso.namespace,
        DATABASE_SCHEMA: schemas.experiments,
      }),
    );
    evaluatorPorts = await freePorts(2);
    for (const port of evaluatorPorts) {
      const env = evaluatorEnv(
        { ...iso, schema: schemas.evaluator },
        { ...onCluster, PORT: String(port), EVALUATOR_ACK_WAIT_MS: '5000' },
      );
      services.push(startServiceProcess('evaluator', env));
    }
  }, 60_000);

  afterAll(async () => {
    await Promise.all(services.map((service) => service.stop()));
    await nc?.close().catch(() => undefined);
    await cluster?.stop();
    for (const schema of Object.values(schemas)) await removeTestResources({ schema });
  });

  const call = (subject: string, request: object) =>
    rpc.request(subject, { actor: 'test', ...request }, { timeoutMs: 5_000 });
  const ready = (port: number) =>
    fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
  const activeExperiments = async (port: number) => {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    return Number(/^evaluator_active_experiments(?:\{[^}]*\})? (\d+)$/m.exec(text)?.[1]);
  };
  const report = (experiment: string) =>
    rpc.request<PreviewReport>(
      PREVIEW_SUBJECTS.previewReport,
      { name: `${POLICY}/experiments/${experiment}` },
      { timeoutMs: 5_000 },
    );

  /** Publishes as a producer does (Nats-Msg-Id = event id), sending again what a failover refused. */
  async function publish(from: number, to: number): Promise<void> {
    const js = nc.jetstream();
    const subject = iso.ns.subject(trafficSubject('acme', 'global', 'web'));
    let pending = Array.from({ length: to - from }, (_, i) => from + i);
    while (pending.length) {
      const failed: number[] = [];
      for (let i = 0; i < pending.length; i += 500) {
        const chunk = pending.slice(i, i + 500);
        const results = await Promise.allSettled(
          chunk.map((n) =>
            js.publish(subject, JSON.stringify(event(n)), { msgID: event(n).id, timeout: 2_000 }),
          ),
        );
        results.forEach((result, j) => result.status === 'rejected' && failed.push(chunk[j]));
      }
      pending = failed;
      if (failed.length) await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  it('counts every event exactly once, applies a startPreview issued during the failover, and needs no restart', async () => {
    await eventually(
      () =>
        call(EXPERIMENT_SUBJECTS.createPolicy, {
          parent: 'projects/acme/locations/global',
          firewallPolicyId: 'web',
          firewallPolicy: { rules: [rule(100, 'allow')] },
        }).then(() => true),
      {
        timeoutMs: 40_000,
        intervalMs: 250,
        what: 'the experiment-service serving',
      },
    );
    await call(EXPERIMENT_SUBJECTS.createExperiment, {
      parent: POLICY,
      experimentId: 'no-ssh',
      experiment: { firewallPolicy: { rules: [rule(10, 'deny', ['22']), rule(100, 'allow')] } },
    });
    await call(EXPERIMENT_SUBJECTS.createExperiment, {
      parent: POLICY,
      experimentId: 'no-web',
      experiment: { firewallPolicy: { rules: [rule(10, 'deny', ['443']), rule(100, 'allow')] } },
    });
    await call(EXPERIMENT_SUBJECTS.startPreview, { name: `${POLICY}/experiments/no-ssh` });
    await eventually(
      async () =>
        (await Promise.all(evaluatorPorts.map(ready))).every(Boolean) ? true : undefined,
      // Generous: on a loaded machine the cluster elects and the followers catch up slowly.
      { timeoutMs: 90_000, intervalMs: 250, what: 'both evaluators ready' },
    );
    // Ready is not yet previewing: the startPreview reaches the evaluators through the state
    // relay, and events evaluated before it applied are not the preview's (previewAppliedTime).
    await eventually(
      async () =>
        (await Promise.all(evaluatorPorts.map(activeExperiments))).every((n) => n === 1)
          ? true
          : undefined,
      { timeoutMs: 30_000, intervalMs: 250, what: 'both evaluators previewing no-ssh' },
    );
    const pids = services.map((service) => service.child.pid);

    const jsm = await nc.jetstreamManager();
    const streamInfo = await jsm.streams.info(iso.ns.stream(TRAFFIC_STREAM));
    expect(streamInfo.config.num_replicas).toBe(3);
    await publish(0, 20_000);
    const leader = cluster.node(
      streamInfo.cluster?.leader ??
        (await jsm.streams.info(iso.ns.stream(TRAFFIC_STREAM))).cluster!.leader!,
    );
    await leader.kill();

    // While the node is down: more traffic, and a preview started.
    const started = eventually(
      () =>
        call(EXPERIMENT_SUBJECTS.startPreview, { name: `${POLICY}/experiments/no-web` }).then(
          () => true,
        ),
      {
        timeoutMs: 30_000,
        intervalMs: 250,
        what: 'startPreview during the failover',
      },
    );
    await publish(20_000, 35_000);
    await started;
    await leader.restart();
    await eventually(
      async () => {
        const active = await Promise.all(evaluatorPorts.map(activeExperiments));
        if (!active.every((n) => n === 2))
          throw new Error(`active experiments by evaluator: ${active.join(', ')}`);
        return true;
      },
      {
        timeoutMs: 30_000,
        intervalMs: 250,
        what: 'both evaluators previewing the experiment started during the failover',
      },
    );
    await publish(35_000, TOTAL);

    await eventually(
      async () => {
        const info = await jsm.consumers.info(iso.ns.stream(TRAFFIC_STREAM), TRAFFIC_DURABLE);
        return info.num_pending === 0 &&
          info.num_ack_pending === 0 &&
          info.ack_floor.stream_seq >= TOTAL
          ? true
          : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 500, what: 'every event settled' },
    );
    const noSsh = (await report('no-ssh')).configurations;
    expect(noSsh).toHaveLength(1);
    expect(noSsh[0]).toMatchObject({
      evaluated: TOTAL,
      changed: TOTAL / 4,
      allowToDeny: TOTAL / 4,
      unchangedAllow: (TOTAL * 3) / 4,
    });
    // Started during the failover: in effect for all the traffic after it, and its counts agree with themselves.
    const [noWeb] = (await report('no-web')).configurations;
    expect(noWeb.evaluated).toBeGreaterThanOrEqual(TOTAL - 35_000);
    expect(noWeb.allowToDeny).toBeGreaterThan(0);
    expect(noWeb.changed).toBe(noWeb.allowToDeny);
    expect(noWeb.evaluated).toBe(noWeb.allowToDeny + noWeb.unchangedAllow);

    expect(services.map((service) => [service.child.pid, service.child.exitCode])).toEqual(
      pids.map((pid) => [pid, null]),
    );
    expect(await Promise.all(evaluatorPorts.map(ready))).toEqual([true, true]);
  }, 170_000);
});
