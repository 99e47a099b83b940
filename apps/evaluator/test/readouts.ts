import {
  ListPreviewFlowsResponse,
  PREVIEW_LOGS_STREAM,
  PREVIEW_SUBJECTS,
  PreviewFlow,
  PreviewLogBatch,
  PreviewLogRecord,
  DEAD_LETTER_STREAM,
} from '@rollout/contracts';
import { DEAD_LETTER_REASON_HEADER, NatsRpcClient } from '@rollout/platform/nats';
import { TEST_POSTGRES_URL } from '@rollout/testing/kit';
import type { NatsConnection } from 'nats';
import { Client } from 'pg';
import type { Isolation } from './evaluator-app';

/** Test helpers: what the evaluator left behind, read back (dead letters, preview logs, flows, table rows). */

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
  for (
    let seq = info?.state.first_seq ?? 1;
    info && info.state.messages > 0 && seq <= info.state.last_seq;
    seq++
  ) {
    const stored = await jsm.streams.getMessage(stream, { seq });
    letters.push({
      data: new TextDecoder().decode(stored.data),
      reason: stored.header.get(DEAD_LETTER_REASON_HEADER),
      subject: stored.header.get('Dead-Letter-Subject'),
    });
  }
  return letters;
}

/** Every record on PREVIEW_LOGS (the complete per-event log), optionally of one experiment's subject. */
export async function streamRecords(
  nc: NatsConnection,
  iso: Isolation,
  subject?: string,
): Promise<PreviewLogRecord[]> {
  const jsm = await nc.jetstreamManager();
  const stream = iso.ns.stream(PREVIEW_LOGS_STREAM);
  const info = await jsm.streams.info(stream);
  const records: PreviewLogRecord[] = [];
  for (
    let seq = info.state.first_seq;
    info.state.messages > 0 && seq <= info.state.last_seq;
    seq++
  ) {
    const message = await jsm.streams.getMessage(stream, { seq });
    if (subject === undefined || message.subject === iso.ns.subject(subject))
      records.push(...message.json<PreviewLogBatch>().records);
  }
  return records;
}

/** The payloads of every PREVIEW_LOGS message on one subject (not namespaced), parsed as JSON, in stream order. */
export async function streamPayloads<T>(
  nc: NatsConnection,
  iso: Isolation,
  subject: string,
): Promise<T[]> {
  const jsm = await nc.jetstreamManager();
  const stream = iso.ns.stream(PREVIEW_LOGS_STREAM);
  const info = await jsm.streams.info(stream);
  const payloads: T[] = [];
  for (
    let seq = info.state.first_seq;
    info.state.messages > 0 && seq <= info.state.last_seq;
    seq++
  ) {
    const message = await jsm.streams.getMessage(stream, { seq });
    if (message.subject === iso.ns.subject(subject)) payloads.push(message.json<T>());
  }
  return payloads;
}

/** Every flow previewFlows lists for this query, page by page. */
export async function allFlows(
  rpc: NatsRpcClient,
  parent: string,
  query: { filter?: string; pageSize?: number } = {},
): Promise<PreviewFlow[]> {
  const flows: PreviewFlow[] = [];
  let pageToken: string | undefined;
  do {
    const page = await rpc.request<ListPreviewFlowsResponse>(
      PREVIEW_SUBJECTS.previewFlows,
      { parent, ...query, pageToken },
      { timeoutMs: 10_000 },
    );
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
    const tables = (
      await pg.query<{ name: string }>(
        `SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 ORDER BY 1`,
        [iso.schema],
      )
    ).rows;
    const counts: Record<string, number> = {};
    for (const { name } of tables)
      counts[name] = Number(
        (await pg.query(`SELECT count(*) AS n FROM "${iso.schema}"."${name}"`)).rows[0].n,
      );
    return counts;
  } finally {
    await pg.end();
  }
}
