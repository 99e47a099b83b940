import type { INestApplication } from '@nestjs/common';
import { TRAFFIC_STREAM, TrafficEvent, trafficSubject } from '@rollout/contracts';
import { NatsNamespace } from '@rollout/platform/nats';
import {
  ServiceProcess,
  TEST_NATS_URL,
  eventually,
  freePorts,
  removeTestResources,
  startServiceProcess,
  uniqueName,
  JsonBody,
} from '@rollout/testing/kit';
import { NatsConnection, connect } from 'nats';
import { createHash } from 'node:crypto';
import { startGateway } from './gateway';

// Previewing through the gateway against real traffic: the gateway in-process, the
// experiment-service and the evaluator from their own main.ts in child processes (apps never
// import each other), on one NATS namespace, each with its own Postgres schema.

export const TOKEN = 'preview-test-token';
/** An editor of another team's project only. */
export const OTHER_TEAM_TOKEN = 'preview-other-team-token';
const digest = (token: string) => createHash('sha256').update(token).digest('hex');
export const API_KEYS = JSON.stringify([
  { name: 'test-admin', sha256: digest(TOKEN), roles: ['admin'], projects: '*' },
  { name: 'other-team', sha256: digest(OTHER_TEAM_TOKEN), roles: ['editor'], projects: ['other'] },
]);
export const P = '/v1/projects/acme/locations/global/firewallPolicies';

/** The live policy's rule: ssh from 10.0.0.0/8 allowed. */
export const allowSsh = {
  priority: 100,
  direction: 'INGRESS',
  action: 'allow',
  match: { srcIpRanges: ['10.0.0.0/8'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] },
};
/** The experiment's rule before it: everything from 10.0.1.0/24 denied. */
export const denyNet = {
  priority: 10,
  direction: 'INGRESS',
  action: 'deny',
  match: { srcIpRanges: ['10.0.1.0/24'] },
};

/** What a spec file's gateway, experiment-service and evaluators run in; the helpers may be taken apart at its top. */
export interface PreviewSystem {
  call(
    method: string,
    path: string,
    body?: unknown,
    token?: string,
  ): Promise<{ status: number; body: JsonBody }>;
  /** As call, with the response's headers. */
  respond(
    method: string,
    path: string,
    body?: unknown,
    token?: string,
  ): Promise<{ status: number; body: JsonBody; headers: Headers }>;
  /** An INGRESS connection to 192.0.2.1, `spacingMs` after the previous one in event time. */
  trafficEvent(srcIp: string, options?: { destPort?: number; spacingMs?: number }): TrafficEvent;
  /** Publishes as a traffic producer does; answers the stream sequence of the last one. */
  publishTraffic(policy: string, events: TrafficEvent[]): Promise<number>;
  /** Publishes, then resolves once the evaluator has settled them all. */
  sendTraffic(policy: string, events: TrafficEvent[]): Promise<void>;
  /** ACTIVE experiments each evaluator replica holds, from its /metrics. */
  activeOnReplicas(): Promise<number[]>;
}

export interface PreviewSystemOptions {
  /** Evaluator replicas, sharing the traffic. */
  evaluators?: number;
  /** Settings of every evaluator beside the test ones. */
  evaluatorEnv?: Record<string, string>;
  /** Settings of the experiment-service beside the test ones (e.g. a DATABASE_URL of its own). */
  experimentEnv?: Record<string, string>;
}

/**
 * The one system of a spec file: the experiment-service, the evaluators and the gateway, and a
 * NATS connection; everything stopped and removed after the file (or the `describe` it is
 * called in).
 */
export function previewSystem(options: PreviewSystemOptions = {}): PreviewSystem {
  const { system, start, stop } = unstartedPreviewSystem(options);
  beforeAll(start, 60_000);
  afterAll(stop);
  return system;
}

function unstartedPreviewSystem({
  evaluators = 1,
  evaluatorEnv = {},
  experimentEnv = {},
}: PreviewSystemOptions) {
  const namespace = uniqueName();
  const ns = new NatsNamespace(namespace);
  const schemas = { experiment: uniqueName('it_'), preview: uniqueName('it_') };
  let gateway: INestApplication | undefined;
  let services: ServiceProcess[] = [];
  let base: string;
  let nc: NatsConnection | undefined;
  let evaluatorPorts: number[] = [];
  let sent = 0;

  const system: PreviewSystem = {
    async call(method, path, body, token) {
      const { status, body: answer } = await system.respond(method, path, body, token);
      return { status, body: answer };
    },
    async respond(method, path, body, token = TOKEN) {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return {
        status: response.status,
        body: text ? JSON.parse(text) : {},
        headers: response.headers,
      };
    },
    trafficEvent(srcIp, { destPort = 22, spacingMs = 1000 } = {}) {
      const id = `${namespace}-${sent++}`;
      return {
        id,
        time: new Date(Date.UTC(2025, 5, 1, 12, 0, 0) + sent * spacingMs).toISOString(),
        direction: 'INGRESS',
        srcIp,
        destIp: '192.0.2.1',
        protocol: 'tcp',
        destPort,
      };
    },
    async publishTraffic(policy, events) {
      const js = nc!.jetstream();
      let last = 0;
      for (const e of events)
        last = (
          await js.publish(
            ns.subject(trafficSubject('acme', 'global', policy)),
            JSON.stringify(e),
            { msgID: e.id },
          )
        ).seq;
      return last;
    },
    async sendTraffic(policy, events) {
      const last = await system.publishTraffic(policy, events);
      await eventually(
        async () => {
          const info = await (
            await nc!.jetstreamManager()
          ).consumers.info(ns.stream(TRAFFIC_STREAM), 'evaluator');
          return info.ack_floor.stream_seq >= last && info.num_ack_pending === 0 ? true : undefined;
        },
        { what: 'traffic settled' },
      );
    },
    activeOnReplicas() {
      return Promise.all(
        evaluatorPorts.map(async (port) => {
          const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
          return Number(
            /^evaluator_active_experiments(?:\{[^}]*\})? (\d+)$/m.exec(metrics)?.[1] ?? -1,
          );
        }),
      );
    },
  };

  async function start(): Promise<void> {
    evaluatorPorts = await freePorts(evaluators);
    services = [
      startServiceProcess('experiment-service', {
        NATS_NAMESPACE: namespace,
        DATABASE_SCHEMA: schemas.experiment,
        ...experimentEnv,
      }),
      ...evaluatorPorts.map((port) =>
        startServiceProcess('evaluator', {
          NATS_NAMESPACE: namespace,
          DATABASE_SCHEMA: schemas.preview,
          PORT: String(port),
          TRAFFIC_MAX_BYTES: String(64 * 1024 ** 2),
          PREVIEW_LOGS_MAX_BYTES: String(64 * 1024 ** 2),
          ...evaluatorEnv,
        }),
      ),
    ];
    ({ app: gateway, url: base } = await startGateway({
      NATS_NAMESPACE: namespace,
      AUTH_API_KEYS: API_KEYS,
    }));
    for (const service of ['experiment-service', 'evaluator']) {
      await eventually(
        async () =>
          (await system.call('GET', `/v1/services/${service}`)).status === 200 ? true : undefined,
        { timeoutMs: 40_000, intervalMs: 200, what: `${service} serving` },
      );
    }
    nc = await connect({ servers: TEST_NATS_URL });
  }

  async function stop(): Promise<void> {
    await gateway?.close();
    await Promise.all(services.map((s) => s.stop()));
    await nc?.close();
    await removeTestResources({ schema: schemas.experiment, namespace });
    await removeTestResources({ schema: schemas.preview });
  }

  return { system, start, stop };
}
