import type { ListPreviewFlowsResponse, PreviewFlow, PreviewVerdict } from '@rollout/contracts';

/** Verdicts and samples flattened; pages written out as they arrive. */
export const FLOW_CSV_COLUMNS = [
  'experimentEtag',
  'livePolicyEtag',
  'direction',
  'srcIp',
  'destIp',
  'protocol',
  'destPort',
  'transition',
  'liveResult.action',
  'liveResult.rulePriority',
  'liveResult.implied',
  'experimentResult.action',
  'experimentResult.rulePriority',
  'experimentResult.implied',
  'count',
  'firstEventTime',
  'lastEventTime',
  'samples',
] as const;

/** RFC 4180: quoted when it holds a comma, quote or line break; quotes doubled. */
export function csvField(value: unknown): string {
  const text = value === undefined || value === null ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const verdictFields = (verdict: PreviewVerdict) => [
  verdict.action,
  verdict.rulePriority,
  verdict.implied,
];

/** CRLF-terminated; samples as the API's JSON. */
export function flowCsvLine(flow: PreviewFlow): string {
  return `${[
    flow.experimentEtag,
    flow.livePolicyEtag,
    flow.direction,
    flow.srcIp,
    flow.destIp,
    flow.protocol,
    flow.destPort,
    flow.transition,
    ...verdictFields(flow.liveResult),
    ...verdictFields(flow.experimentResult),
    flow.count,
    flow.firstEventTime,
    flow.lastEventTime,
    JSON.stringify(flow.samples),
  ]
    .map(csvField)
    .join(',')}\r\n`;
}

export async function* flowCsvChunks(
  fetchPage: (pageToken?: string) => Promise<ListPreviewFlowsResponse>,
  onRows: (rows: number) => void = () => undefined,
): AsyncGenerator<string> {
  yield `${FLOW_CSV_COLUMNS.join(',')}\r\n`;
  let rows = 0;
  let pageToken: string | undefined;
  do {
    const page = await fetchPage(pageToken);
    rows += page.previewFlows.length;
    yield page.previewFlows.map(flowCsvLine).join('');
    onRows(rows);
    pageToken = page.nextPageToken;
  } while (pageToken);
}

/** A page is fetched only when read. */
export function csvStream(chunks: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
}
