import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@rollout/config';
import {
  EXPERIMENT_STATE_BUCKET,
  ExperimentEvent,
  FirewallRule,
  ListPreviewFlowsResponse,
  PREVIEW_LOGS_STREAM,
  PREVIEW_SUBJECTS,
  PolicyEvent,
  PreviewFlow,
  PreviewLogBatch,
  PreviewLogRecord,
  PreviewState as ContractPreviewState,
  TRAFFIC_STREAM,
  TrafficEvent,
  STATE_POSITION_KEY,
  STATE_VERSION_HEADER,
  experimentStateKey,
  policyStateKey,
  trafficSubject,
} from '@rollout/contracts';
import { TrafficEvent as TrafficEventV2alpha, trafficV2alphaSubject } from '@rollout/contracts-alpha';
import { DEAD_LETTER_REASON_HEADER, DEAD_LETTER_STREAM, NatsNamespace, NatsRpcClient } from '@rollout/nats';
import { startServiceApp } from '@rollout/service-kit';
import { TEST_NATS_URL, TEST_POSTGRES_URL, removeTestResources, uniqueName } from '@rollout/testing';
import { Empty, JSONCodec, NatsConnection, headers as natsHeaders } from 'nats';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { AppModule } from './app.module';
import { configSchema } from './config';
import { TRAFFIC_DURABLE } from './jetstream';

/**
 * Test helpers: an evaluator on its own namespace and schema, and a stand-in for the
 * experiment-service that writes experiment.v1 current state as its state relay does (the
 * last event of each aggregate, full state included, or a delete marker; one key each).
 */
export interface Isolation {
  namespace: string;
  schema: string;
  ns: NatsNamespace;
}

export function isolation(): Isolation {
  const namespace = uniqueName();
  return { namespace, schema: uniqueName('it_'), ns: new NatsNamespace(namespace) };
}

/** Env of an evaluator on this isolation (small stream limits: many test runs share one server). */
export function evaluatorEnv({ namespace, schema }: Isolation, extra: Record<string, string> = {}): Record<string, string> {
  return {
    NATS_URL: TEST_NATS_URL,
    NATS_NAMESPACE: namespace,
    DATABASE_URL: TEST_POSTGRES_URL,
    DATABASE_SCHEMA: schema,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    TRAFFIC_MAX_BYTES: String(128 * 1024 ** 2),
    PREVIEW_LOGS_MAX_BYTES: String(128 * 1024 ** 2),
    PREVIEW_HOUSEKEEPING_INTERVAL_MS: '1000',
    ...extra,
  };
}

export async function startEvaluator(iso: Isolation, extra: Record<string, string> = {}): Promise<INestApplication> {
  const config = loadConfig(configSchema, evaluatorEnv(iso, extra));
  return startServiceApp({ name: 'evaluator', config, module: AppModule.forRoot(config), rpc: true });
}

export const rpcClient = (nc: NatsConnection, iso: Isolation) => new NatsRpcClient(nc, iso.ns);

export async function cleanUp(iso: Isolation): Promise<void> {
  await removeTestResources({ schema: iso.schema, namespace: iso.namespace });
}

const codec = JSONCodec<unknown>();
const T0 = '2025-06-01T00:00:00.000Z';

/**
 * The experiment-service's side of the world: live policies and experiments as entries of the
 * EXPERIMENT_STATE bucket, written in the form its state relay writes them (see experiment.v1).
 */
export class ExperimentWorld {
  private readonly versions = new Map<string, number>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly iso: Isolation,
    readonly project = 'acme',
    readonly location = 'global',
  ) {}

  /** The bucket as the experiment-service declares it; `filled` also writes its position key. */
  async createBucket({ filled = true } = {}): Promise<void> {
    await this.nc.jetstream().views.kv(this.bucket, { history: 1 });
    if (filled) await this.markFilled();
  }

  /** What the state relay writes once the bucket holds every committed event. */
  async markFilled(): Promise<void> {
    const headers = natsHeaders();
    headers.set('Event-Tx', '1');
    headers.set('Event-Position', '1');
    await this.nc.jetstream().publish(`$KV.${this.bucket}.${STATE_POSITION_KEY}`, Empty, { headers });
  }

  private get bucket(): string {
    return this.iso.ns.bucket(EXPERIMENT_STATE_BUCKET);
  }

  policyName(policy: string): string {
    return `projects/${this.project}/locations/${this.location}/firewallPolicies/${policy}`;
  }

  experimentName(policy: string, experiment: string): string {
    return `${this.policyName(policy)}/experiments/${experiment}`;
  }

  /** Creates or updates a live policy; returns its new etag. */
  async policy(policy: string, rules: FirewallRule[]): Promise<string> {
    const name = this.policyName(policy);
    const version = this.next(name);
    const etag = `${policy}-L${version}`;
    const event: PolicyEvent = {
      id: randomUUID(),
      type: version === 1 ? 'PolicyCreated' : 'PolicyUpdated',
      subject: name,
      version,
      time: T0,
      actor: 'test',
      state: { name, rules, etag, createTime: T0, updateTime: T0 },
    };
    await this.write(policyStateKey(this.project, this.location, policy), event);
    return etag;
  }

  async deletePolicy(policy: string): Promise<void> {
    await this.remove(policyStateKey(this.project, this.location, policy), this.next(this.policyName(policy)));
  }

  /** Creates or changes an experiment (preview state as given); returns its new etag. */
  async experiment(policy: string, experiment: string, rules: FirewallRule[], preview?: ContractPreviewState, type?: ExperimentEvent['type']): Promise<string> {
    const name = this.experimentName(policy, experiment);
    const version = this.next(name);
    const etag = `${experiment}-E${version}`;
    const event: ExperimentEvent = {
      id: randomUUID(),
      type: type ?? (version === 1 ? 'ExperimentCreated' : preview === 'ACTIVE' ? 'PreviewStarted' : preview === 'SUSPENDED' ? 'PreviewStopped' : 'ExperimentUpdated'),
      subject: name,
      version,
      time: T0,
      actor: 'test',
      state: {
        name,
        firewallPolicy: { name: this.policyName(policy), rules },
        ...(preview ? { previewMetadata: { state: preview, logPrefix: 'FirewallPolicyPreviewLog', startTime: T0 } } : {}),
        annotations: {},
        etag,
        createTime: T0,
        updateTime: T0,
      },
    };
    await this.write(experimentStateKey(this.project, this.location, policy, experiment), event);
    return etag;
  }

  /** ExperimentDeleted or ExperimentCommitted: the key is deleted. */
  async endExperiment(policy: string, experiment: string): Promise<void> {
    await this.remove(experimentStateKey(this.project, this.location, policy, experiment), this.next(this.experimentName(policy, experiment)));
  }

  private next(name: string): number {
    const version = (this.versions.get(name) ?? 0) + 1;
    this.versions.set(name, version);
    return version;
  }

  private async write(key: string, event: PolicyEvent | ExperimentEvent) {
    const headers = natsHeaders();
    headers.set(STATE_VERSION_HEADER, String(event.version));
    await this.nc.jetstream().publish(`$KV.${this.bucket}.${key}`, codec.encode(event), { headers });
  }

  private async remove(key: string, version: number) {
    const headers = natsHeaders();
    headers.set('KV-Operation', 'DEL');
    headers.set(STATE_VERSION_HEADER, String(version));
    await this.nc.jetstream().publish(`$KV.${this.bucket}.${key}`, Empty, { headers });
  }
}

let counter = 0;

/** A traffic event; `n` spreads sources over 10.0.{n/256}.{n%256}. */
export function trafficEvent(n: number, overrides: Partial<TrafficEvent> = {}): TrafficEvent {
  return {
    id: `evt-${n}-${(counter++).toString(36)}`,
    time: new Date(Date.parse(T0) + n * 1000).toISOString(),
    direction: 'INGRESS',
    srcIp: `10.0.${(n >> 8) & 255}.${n & 255}`,
    destIp: '192.0.2.10',
    protocol: 'tcp',
    srcPort: 40000 + (n % 1000),
    destPort: 22,
    ...overrides,
  };
}

/** Publishes as a producer does: Nats-Msg-Id = event id. Returns the last stream sequence. */
export async function publishTraffic(nc: NatsConnection, iso: Isolation, policy: string, events: (TrafficEvent | string)[], world = { project: 'acme', location: 'global' }): Promise<number> {
  const js = nc.jetstream();
  const subject = iso.ns.subject(trafficSubject(world.project, world.location, policy));
  let last = 0;
  for (let i = 0; i < events.length; i += 1000) {
    const acks = await Promise.all(
      events.slice(i, i + 1000).map((event) =>
        typeof event === 'string'
          ? js.publish(subject, event)
          : js.publish(subject, JSON.stringify(event), { msgID: event.id }),
      ),
    );
    last = Math.max(last, ...acks.map((ack) => ack.seq));
  }
  return last;
}

/** A traffic.v1 event as traffic.v2alpha spells it (the same event). */
export function toV2alpha(event: TrafficEvent): TrafficEventV2alpha {
  const { srcIp, destIp, srcPort, destPort, ...rest } = event;
  const out: TrafficEventV2alpha = { ...rest, sourceIp: srcIp, destinationIp: destIp };
  if (srcPort !== undefined) out.sourcePort = srcPort;
  if (destPort !== undefined) out.destinationPort = destPort;
  return out;
}

let batchCounter = 0;

/**
 * Publishes traffic.v2alpha batches of these (v1) events, `batchSize` per message, with a
 * Nats-Msg-Id of its own per batch and the given headers. Returns the last stream sequence.
 */
export async function publishTrafficBatches(
  nc: NatsConnection,
  iso: Isolation,
  policy: string,
  events: TrafficEvent[],
  { batchSize = 100, headers = {}, world = { project: 'acme', location: 'global' } }: { batchSize?: number; headers?: Record<string, string>; world?: { project: string; location: string } } = {},
): Promise<number> {
  const js = nc.jetstream();
  const subject = iso.ns.subject(trafficV2alphaSubject(world.project, world.location, policy));
  const batches: TrafficEvent[][] = [];
  for (let i = 0; i < events.length; i += batchSize) batches.push(events.slice(i, i + batchSize));
  const acks = await Promise.all(
    batches.map((batch) => {
      const hdrs = natsHeaders();
      for (const [name, value] of Object.entries(headers)) hdrs.set(name, value);
      return js.publish(subject, JSON.stringify({ events: batch.map(toV2alpha) }), { msgID: `batch-${(batchCounter++).toString(36)}-${batch[0].id}`, headers: hdrs });
    }),
  );
  return Math.max(0, ...acks.map((ack) => ack.seq));
}

/** Resolves when the evaluator's durable consumer has settled every traffic message up to `seq`. */
export async function settledUpTo(nc: NatsConnection, iso: Isolation, seq: number): Promise<boolean | undefined> {
  const info = await (await nc.jetstreamManager()).consumers.info(iso.ns.stream(TRAFFIC_STREAM), TRAFFIC_DURABLE);
  return info.ack_floor.stream_seq >= seq && info.num_ack_pending === 0 ? true : undefined;
}

export interface DeadLetter {
  data: string;
  reason: string;
  subject: string;
}

export async function deadLetters(nc: NatsConnection, iso: Isolation): Promise<DeadLetter[]> {
  const jsm = await nc.jetstreamManager();
  const stream = iso.ns.stream(DEAD_LETTER_STREAM.name);
  const info = await jsm.streams.info(stream).catch(() => undefined);
  const letters: DeadLetter[] = [];
  for (let seq = info?.state.first_seq ?? 1; info && info.state.messages > 0 && seq <= info.state.last_seq; seq++) {
    const stored = await jsm.streams.getMessage(stream, { seq });
    letters.push({ data: new TextDecoder().decode(stored.data), reason: stored.header.get(DEAD_LETTER_REASON_HEADER), subject: stored.header.get('Dead-Letter-Subject') });
  }
  return letters;
}

/** Every record on PREVIEW_LOGS (the complete per-event log), optionally of one experiment's subject. */
export async function streamRecords(nc: NatsConnection, iso: Isolation, subject?: string): Promise<PreviewLogRecord[]> {
  const jsm = await nc.jetstreamManager();
  const stream = iso.ns.stream(PREVIEW_LOGS_STREAM);
  const info = await jsm.streams.info(stream);
  const records: PreviewLogRecord[] = [];
  for (let seq = info.state.first_seq; info.state.messages > 0 && seq <= info.state.last_seq; seq++) {
    const message = await jsm.streams.getMessage(stream, { seq });
    if (subject === undefined || message.subject === iso.ns.subject(subject)) records.push(...message.json<PreviewLogBatch>().records);
  }
  return records;
}

/** Every flow previewFlows lists for this query, page by page. */
export async function allFlows(rpc: NatsRpcClient, parent: string, query: { filter?: string; pageSize?: number } = {}): Promise<PreviewFlow[]> {
  const flows: PreviewFlow[] = [];
  let pageToken: string | undefined;
  do {
    const page = await rpc.request<ListPreviewFlowsResponse>(PREVIEW_SUBJECTS.previewFlows, { parent, ...query, pageToken }, { timeoutMs: 10_000 });
    flows.push(...page.previewFlows);
    pageToken = page.nextPageToken;
  } while (pageToken);
  return flows;
}

/** Row counts of every table of the evaluator's schema. */
export async function tableRows(iso: Isolation): Promise<Record<string, number>> {
  const pg = new Client({ connectionString: TEST_POSTGRES_URL });
  await pg.connect();
  try {
    const tables = (await pg.query<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 ORDER BY 1`, [iso.schema])).rows;
    const counts: Record<string, number> = {};
    for (const { name } of tables) counts[name] = Number((await pg.query(`SELECT count(*) AS n FROM "${iso.schema}"."${name}"`)).rows[0].n);
    return counts;
  } finally {
    await pg.end();
  }
}
