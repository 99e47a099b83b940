import type { INestApplication } from '@nestjs/common';
import {
  EXPERIMENT_SUBJECTS,
  PREVIEW_SUBJECTS,
  PreviewConfigurationReport,
  PreviewFlow,
  Status,
  StatusError,
} from '@rollout/contracts';
import { NatsNamespace } from '@rollout/platform/nats';
import { TEST_NATS_URL, removeTestResources, uniqueName, JsonBody } from '@rollout/testing/kit';
import { JSONCodec, NatsConnection, connect } from 'nats';
import { counterSample } from './experiments-system';
import { startGateway } from './gateway';
import { API_KEYS, P, TOKEN } from './preview-system';

// What the gateway itself does with the evaluator's answers, whatever the evaluator holds:
// stand-ins answer the evaluator's and the experiment-service's subjects on the real NATS
// server, in a namespace of their own, as those services do (the NestJS transport's packets,
// in their queue groups), and record what they were asked.

const codec = JSONCodec<unknown>();
export const name = 'projects/acme/locations/global/firewallPolicies/edge/experiments/block-ssh';
export const path = `${P}/edge/experiments/block-ssh`;
export const flow: PreviewFlow = {
  experimentEtag: 'E2',
  livePolicyEtag: 'P1',
  direction: 'INGRESS',
  srcIp: '10.0.1.7',
  destIp: '192.0.2.1',
  protocol: 'tcp',
  destPort: 22,
  transition: 'ALLOW_TO_DENY',
  liveResult: { action: 'allow', rulePriority: 100, implied: false },
  experimentResult: { action: 'deny', rulePriority: 10, implied: false },
  count: 3,
  firstEventTime: '2025-06-01T12:00:01.000Z',
  lastEventTime: '2025-06-01T12:00:03.000Z',
  samples: [{ trafficEventId: 'evt-1', eventTime: '2025-06-01T12:00:01.000Z', srcPort: 51512 }],
};
export const configuration: PreviewConfigurationReport = {
  experimentEtag: 'E2',
  livePolicyEtag: 'P1',
  evaluated: 10,
  changed: 3,
  allowToDeny: 3,
  denyToAllow: 0,
  unchangedAllow: 5,
  unchangedDeny: 2,
  liveRules: [{ rulePriority: 100, implied: false, action: 'allow', count: 8 }],
  experimentRules: [{ rulePriority: 10, implied: false, action: 'deny', count: 3 }],
  topChangedSources: [{ srcIp: '10.0.1.7', count: 3 }],
  topChangedDestinationPorts: [{ protocol: 'tcp', destPort: 22, count: 3 }],
  flows: 1,
  changedOutsideFlows: 0,
  firstEventTime: '2025-06-01T12:00:01.000Z',
  lastEventTime: '2025-06-01T12:00:03.000Z',
};
export const notFound = StatusError.withReason(
  'NOT_FOUND',
  `Experiment "${name}" not found.`,
  'EXPERIMENT_NOT_FOUND',
).toStatus();

type Answer = { response: unknown } | { err: Status };

const standIns: [subject: string, queue: string][] = [
  [EXPERIMENT_SUBJECTS.getExperiment, 'experiment-service'],
  // Asked before each evaluator read (read your own writes): an empty log, nothing to wait for.
  [EXPERIMENT_SUBJECTS.statePosition, 'experiment-service'],
  [PREVIEW_SUBJECTS.previewFlows, 'evaluator'],
  [PREVIEW_SUBJECTS.previewLogs, 'evaluator'],
  [PREVIEW_SUBJECTS.previewReport, 'evaluator'],
];

/** The stand-ins and the gateway before them; the helpers may be taken apart at a spec's top. */
export interface PreviewStandIns {
  /** What each subject answers, set per test (getExperiment answers an experiment of etag E2 unless a test sets it). */
  answers: Map<string, (data: unknown) => Answer>;
  /** What a subject was asked in this test. */
  askedOn(subject: string): unknown[];
  /** A GET through the gateway from the audit-cli client. */
  get(url: string, token?: string): Promise<{ status: number; headers: Headers; body: JsonBody }>;
  /** The value of one sample of a gateway counter, 0 when it has none with these labels. */
  sample(metric: string, labels: Record<string, string>): Promise<number>;
  /** The gateway's address of `route`, for what a test reads without a token. */
  url(route: string): string;
}

/**
 * The one system of a spec file: the stand-ins, then a gateway on their namespace, removed
 * after the file (or the `describe` it is called in). Before each test they forget what they
 * were asked and answer getExperiment with an experiment of etag E2.
 */
export function previewStandIns(): PreviewStandIns {
  const namespace = uniqueName();
  const ns = new NatsNamespace(namespace);
  const asked = new Map<string, unknown[]>();
  let nc: NatsConnection | undefined;
  let gateway: INestApplication | undefined;
  let base: string;
  const standIn: PreviewStandIns = {
    answers: new Map(),
    askedOn: (subject) => asked.get(subject) ?? [],
    async get(url, token = TOKEN) {
      const response = await fetch(`${base}${url}`, {
        headers: { authorization: `Bearer ${token}`, 'user-agent': 'audit-cli/1.0.0' },
      });
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        body: text ? JSON.parse(text) : {},
      };
    },
    sample: (metric, labels) => counterSample(base, metric, labels),
    url: (route) => `${base}${route}`,
  };

  beforeAll(async () => {
    nc = await connect({ servers: TEST_NATS_URL });
    for (const [subject, queue] of standIns) {
      nc.subscribe(ns.subject(subject), {
        queue,
        callback: (_error, msg) => {
          const packet = codec.decode(msg.data) as { id?: string; data?: unknown };
          asked.set(subject, [...standIn.askedOn(subject), packet.data]);
          const answer = standIn.answers.get(subject)?.(packet.data) ?? {
            err: StatusError.withReason(
              'INTERNAL',
              `no answer set for ${subject}`,
              'TEST',
            ).toStatus(),
          };
          msg.respond(codec.encode({ id: packet.id, isDisposed: true, ...answer }));
        },
      });
    }
    await nc.flush();
    ({ app: gateway, url: base } = await startGateway({
      NATS_NAMESPACE: namespace,
      AUTH_API_KEYS: API_KEYS,
      RPC_TIMEOUT_MS: '5000',
    }));
  }, 30_000);
  afterAll(async () => {
    await gateway?.close();
    await nc?.close();
    await removeTestResources({ namespace });
  });
  beforeEach(() => {
    standIn.answers.clear();
    asked.clear();
    standIn.answers.set(EXPERIMENT_SUBJECTS.statePosition, () => ({
      response: { txId: '0', position: '0' },
    }));
    standIn.answers.set(EXPERIMENT_SUBJECTS.getExperiment, (data) => ({
      response: {
        name: (data as { name: string }).name,
        firewallPolicy: { rules: [] },
        etag: 'E2',
      },
    }));
  });
  return standIn;
}
