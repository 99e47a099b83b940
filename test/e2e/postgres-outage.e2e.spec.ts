import { PreviewReport, TRAFFIC_STREAM, TrafficEvent, trafficSubject } from '@rollout/contracts';
import { RunningSystem, SERVICES, ServiceName, launch } from '@rollout/launcher';
import { NatsNamespace } from '@rollout/platform/nats';
import { TEST_NATS_URL, TEST_POSTGRES_URL, eventually } from '@rollout/testing/kit';
import { NatsConnection, connect } from 'nats';
import { Client } from 'pg';
import { DIST, gatewayApi, isolatedSettings, removeRun } from './support';

const TOTAL = 50_000;
const P = '/v1/projects/acme/locations/global/firewallPolicies';
const rule = (priority: number, action: 'allow' | 'deny', ports?: string[]) => ({
  priority,
  direction: 'INGRESS',
  action,
  match: {
    srcIpRanges: ['0.0.0.0/0'],
    ...(ports ? { layer4Configs: [{ ipProtocol: 'tcp', ports }] } : {}),
  },
});
/** Every fifth event goes to port 22, which the experiment denies. */
const event = (n: number): TrafficEvent => ({
  id: `pg-outage-${n}`,
  time: new Date(Date.UTC(2026, 0, 1) + n).toISOString(),
  direction: 'INGRESS',
  srcIp: `10.1.${(n >> 8) & 255}.${n & 255}`,
  destIp: '192.0.2.10',
  protocol: 'tcp',
  srcPort: 40_000 + (n % 1_000),
  destPort: n % 5 === 0 ? 22 : 443,
});

/**
 * Postgres goes away for 10 seconds in the middle of a 50,000-event preview, as a restart or a
 * failover does: every connection of the system is terminated and none is accepted. Nothing is
 * lost or counted twice, and commands issued meanwhile fail with 503 UNAVAILABLE, then succeed
 * when retried.
 */
describe('a Postgres outage during a preview', () => {
  let system: RunningSystem;
  let database: string;
  let ns: NatsNamespace;
  let ports: Record<ServiceName, number>;
  let nc: NatsConnection;
  let admin: Client;

  const api = (method: string, path: string, body?: unknown) =>
    gatewayApi(system)(method, path, body);

  beforeAll(async () => {
    const isolated = await isolatedSettings();
    database = isolated.database;
    ports = isolated.settings.ports;
    ns = new NatsNamespace(isolated.namespace);
    system = await launch({
      settings: isolated.settings,
      distRoot: DIST,
      extraEnv: { NATS_NAMESPACE: isolated.namespace, LOG_LEVEL: 'silent' },
      log: () => undefined,
    });
    nc = await connect({ servers: TEST_NATS_URL });
    admin = new Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
  }, 120_000);

  afterAll(async () => {
    await admin
      ?.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`)
      .catch(() => undefined);
    await admin?.end();
    await nc?.close();
    await system?.stop();
    if (database) await removeRun(database);
  }, 60_000);

  /** What a restart does to the system: every connection cut, and none accepted until `reopen`. */
  async function closeDatabase() {
    await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS false`);
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
      [database],
    );
  }
  const reopenDatabase = () => admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`);

  async function publish(from: number, to: number): Promise<void> {
    const js = nc.jetstream();
    const subject = ns.subject(trafficSubject('acme', 'global', 'web'));
    for (let i = from; i < to; i += 1_000) {
      const chunk = Array.from({ length: Math.min(1_000, to - i) }, (_, j) => event(i + j));
      await Promise.all(chunk.map((e) => js.publish(subject, JSON.stringify(e), { msgID: e.id })));
    }
  }

  it('loses and double-counts nothing, and answers commands 503 UNAVAILABLE until it is back', async () => {
    expect(
      (await api('POST', `${P}?firewallPolicyId=web`, { rules: [rule(100, 'allow')] })).status,
    ).toBe(200);
    expect(
      (
        await api('POST', `${P}/web/experiments?experimentId=no-ssh`, {
          firewallPolicy: { rules: [rule(10, 'deny', ['22']), rule(100, 'allow')] },
        })
      ).status,
    ).toBe(200);
    expect((await api('POST', `${P}/web/experiments/no-ssh:startPreview`)).status).toBe(200);
    // Through the gateway: the evaluator serves only requests that carry the gateway's actor assertion.
    const report = async () => {
      const response = await api('GET', `${P}/web/experiments/no-ssh/previewReport`);
      if (response.status !== 200) throw new Error(`previewReport answered ${response.status}`);
      return response.body as PreviewReport;
    };
    const evaluated = async () =>
      (await report()).configurations.reduce((sum, c) => sum + c.evaluated, 0);
    // startPreview answers before the evaluator applies it; traffic ahead of that is not the
    // preview's (state changes take effect within milliseconds, docs/performance.md).
    await eventually(
      async () => {
        const metrics = await (await fetch(`http://127.0.0.1:${ports.evaluator}/metrics`)).text();
        return /^evaluator_active_experiments(?:\{[^}]*\})? 1$/m.test(metrics) ? true : undefined;
      },
      { timeoutMs: 30_000, what: 'the evaluator holding the preview' },
    );
    await publish(0, 5_000);
    await eventually(async () => ((await evaluated()) > 0 ? true : undefined), {
      timeoutMs: 30_000,
      what: 'the preview counting',
    });

    const publishing = publish(5_000, TOTAL);
    await closeDatabase();
    const closedAt = Date.now();
    const during = await api(
      'POST',
      `${P}/web/experiments?experimentId=later&requestId=7b0e5f7c-2d4a-4c7e-9a51-3f7c2e1d0b9a`,
      { firewallPolicy: { rules: [] } },
    );
    expect(during.status).toBe(503);
    expect(during.body.error).toMatchObject({
      status: 'UNAVAILABLE',
      details: expect.arrayContaining([
        expect.objectContaining({ reason: 'DEPENDENCY_UNAVAILABLE' }),
      ]),
    });
    await publishing;
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, 10_000 - (Date.now() - closedAt))),
    );
    await reopenDatabase();

    // The same command, retried under its request id, succeeds once.
    const retried = await eventually(
      async () => {
        const response = await api(
          'POST',
          `${P}/web/experiments?experimentId=later&requestId=7b0e5f7c-2d4a-4c7e-9a51-3f7c2e1d0b9a`,
          { firewallPolicy: { rules: [] } },
        );
        return response.status === 200 ? response : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500, what: 'the command succeeding on retry' },
    );
    expect(retried.body.response).toMatchObject({
      name: 'projects/acme/locations/global/firewallPolicies/web/experiments/later',
    });

    const jsm = await nc.jetstreamManager();
    await eventually(
      async () => {
        const info = await jsm.consumers.info(ns.stream(TRAFFIC_STREAM), 'evaluator');
        return info.num_pending === 0 && info.num_ack_pending === 0 ? true : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 500, what: 'every event settled' },
    );
    expect((await report()).configurations).toMatchObject([
      {
        evaluated: TOTAL,
        changed: TOTAL / 5,
        allowToDeny: TOTAL / 5,
        unchangedAllow: (TOTAL * 4) / 5,
      },
    ]);
    // Every service rode it out.
    for (const service of SERVICES) {
      await eventually(
        async () =>
          (await fetch(`http://127.0.0.1:${ports[service.name]}/readyz`).catch(() => undefined))?.ok
            ? true
            : undefined,
        {
          timeoutMs: 20_000,
          what: `${service.name} ready again`,
        },
      );
    }
  }, 180_000);
});
