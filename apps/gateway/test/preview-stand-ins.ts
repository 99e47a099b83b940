import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@rollout/platform/config';
import {
  EXPERIMENT_SUBJECTS,
  PREVIEW_SUBJECTS,
  PreviewConfigurationReport,
  PreviewFlow,
  Status,
  StatusError,
} from '@rollout/contracts';
import { NatsNamespace } from '@rollout/platform/nats';
import { startServiceApp } from '@rollout/platform/service-kit';
import { TEST_NATS_URL, removeTestResources, uniqueName, JsonBody } from '@rollout/testing/kit';
import { JSONCodec, NatsConnection, connect } from 'nats';
import type { AddressInfo } from 'node:net';
import { configSchema } from '../src/config';
import { gatewayApp } from '../src/gateway-app';
import { API_KEYS, P, TOKEN } from './preview-system';

/**
 * What the gateway itself does with the evaluator's answers, whatever the evaluator holds:
 * stand-ins answer the evaluator's and the experiment-service's subjects on the real NATS
 * server, in a namespace of their own, as those services do (the NestJS transport's packets,
 * in their queue groups), and record what they were asked.
 */
const standInNamespace = uniqueName();
const standInNs = new NatsNamespace(standInNamespace);
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
/** What each subject answers (set per test) and what it was asked. */
export const answers = new Map<string, (data: unknown) => Answer>();
const asked = new Map<string, unknown[]>();
export const askedOn = (subject: string) => asked.get(subject) ?? [];
let standInNc: NatsConnection;
let standInGateway: INestApplication;
let standInBase: string;

const standIns: [subject: string, queue: string][] = [
  [EXPERIMENT_SUBJECTS.getExperiment, 'experiment-service'],
  [PREVIEW_SUBJECTS.previewFlows, 'evaluator'],
  [PREVIEW_SUBJECTS.previewLogs, 'evaluator'],
  [PREVIEW_SUBJECTS.previewReport, 'evaluator'],
];

export async function get(
  url: string,
  token = TOKEN,
): Promise<{ status: number; headers: Headers; body: JsonBody }> {
  const response = await fetch(`${standInBase}${url}`, {
    headers: { authorization: `Bearer ${token}`, 'user-agent': 'audit-cli/1.0.0' },
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text ? JSON.parse(text) : {},
  };
}

/** The value of one sample of a gateway counter, 0 when it has none with these labels. */
export async function sample(metric: string, labels: Record<string, string>): Promise<number> {
  const text = await (await fetch(`${standInBase}/metrics`)).text();
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith(`${metric}{`) &&
        Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)),
    );
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/** Starts the stand-ins, then a gateway on their namespace. */
export async function startStandIns(): Promise<void> {
  standInNc = await connect({ servers: TEST_NATS_URL });
  for (const [subject, queue] of standIns) {
    standInNc.subscribe(standInNs.subject(subject), {
      queue,
      callback: (_error, msg) => {
        const packet = codec.decode(msg.data) as { id?: string; data?: unknown };
        asked.set(subject, [...askedOn(subject), packet.data]);
        const answer = answers.get(subject)?.(packet.data) ?? {
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
  await standInNc.flush();
  const config = loadConfig(configSchema, {
    NATS_URL: TEST_NATS_URL,
    NATS_NAMESPACE: standInNamespace,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    AUTH_API_KEYS: API_KEYS,
    RATE_LIMIT_PER_SECOND: '10000',
    RATE_LIMIT_BURST: '10000',
    RPC_TIMEOUT_MS: '5000',
  });
  standInGateway = await startServiceApp(gatewayApp(config));
  standInBase = `http://127.0.0.1:${(standInGateway.getHttpServer().address() as AddressInfo).port}`;
}

export async function stopStandIns(): Promise<void> {
  await standInGateway?.close();
  await standInNc?.close();
  await removeTestResources({ namespace: standInNamespace });
}

/** Forgets what was asked, and answers getExperiment with an experiment of etag E2. */
export function resetStandIns(): void {
  answers.clear();
  asked.clear();
  answers.set(EXPERIMENT_SUBJECTS.getExperiment, (data) => ({
    response: {
      name: (data as { name: string }).name,
      firewallPolicy: { rules: [] },
      etag: 'E2',
    },
  }));
}

/** The stand-in gateway's address, for what a test reads without a token. */
export const standInGatewayUrl = (route: string) => `${standInBase}${route}`;
