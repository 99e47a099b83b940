import { Injectable } from '@nestjs/common';
import {
  ListPreviewFlowsRequest,
  ListPreviewFlowsResponse,
  ListPreviewLogsRequest,
  ListPreviewLogsResponse,
  PREVIEW_PAGE_SIZES,
  PageCursor,
  PreviewLogRecord,
  StatusError,
  cursorId,
  decodePageToken,
  encodePageToken,
  invalidPageToken,
  pageSizeOf,
  requireExperimentName,
} from '@rollout/contracts';
import { flowSampleRecord, parseFlowFilter } from '@rollout/domain/preview';
import { FlowCursor, FlowsRepository } from './flows.repository';

@Injectable()
export class FlowQueries {
  constructor(private readonly flows: FlowsRepository) {}

  async listFlows(request: ListPreviewFlowsRequest): Promise<ListPreviewFlowsResponse> {
    const name = requireExperimentName(request?.parent, 'parent').name;
    const filter = parseFlowFilter(request.filter);
    if ('error' in filter)
      throw StatusError.invalidArgument(`The filter is not valid: ${filter.error}.`, [
        { field: 'filter', description: filter.error },
      ]);
    const pageSize = pageSizeOf(request.pageSize, PREVIEW_PAGE_SIZES);
    const query = `flows\n${name}\n${request.filter ?? ''}`;
    const cursor = request.pageToken
      ? flowCursor(decodePageToken(request.pageToken, query))
      : undefined;
    const entries = await this.flows.page(name, filter.terms, cursor, pageSize + 1);
    const page = entries.slice(0, pageSize);
    const response: ListPreviewFlowsResponse = { previewFlows: page.map((entry) => entry.flow) };
    if (entries.length > pageSize)
      response.nextPageToken = encodePageToken(query, { ...page[page.length - 1].cursor });
    return response;
  }

  /** Deprecated: PREVIEW_LOGS has every record; this rebuilds the flows' samples. */
  async listLogs(request: ListPreviewLogsRequest): Promise<ListPreviewLogsResponse> {
    const { name, policyName } = requireExperimentName(request?.name, 'name');
    const pageSize = pageSizeOf(request.pageSize, PREVIEW_PAGE_SIZES);
    const query = `logs\n${name}`;
    let cursor: (FlowCursor & { s: number }) | undefined;
    if (request.pageToken) {
      const decoded = decodePageToken(request.pageToken, query);
      const flow = flowCursor(decoded);
      const s = decoded?.s;
      if (!Number.isSafeInteger(s) || (s as number) < 0) throw invalidPageToken();
      cursor = { ...flow, s: s as number };
    }
    const records: PreviewLogRecord[] = [];
    let next: PageCursor | undefined;
    // Flows hold at most PREVIEW_FLOW_SAMPLES records each: a page of flows as big as the page of records always suffices.
    const entries = await this.flows.page(name, [], cursor, pageSize + 1, true);
    for (const [index, { cursor: at, flow }] of entries.entries()) {
      // The page resumes inside the cursor's flow, unless that flow has been seen again (moved ahead).
      const from = index === 0 && cursor && at.f === cursor.f ? cursor.s : 0;
      for (let s = from; s < flow.samples.length; s++) {
        if (records.length === pageSize) {
          next = { ...at, s };
          break;
        }
        records.push(flowSampleRecord(name, policyName, flow, flow.samples[s]));
      }
      if (next) break;
    }
    return {
      previewLogs: records,
      ...(next ? { nextPageToken: encodePageToken(query, next) } : {}),
    };
  }
}

/** A timestamptz as Postgres writes it (ISO DateStyle): what a cursor may carry back. */
const POSTGRES_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/;

function flowCursor(decoded: Record<string, unknown> | undefined): FlowCursor {
  const c = cursorId(decoded?.c);
  const f = cursorId(decoded?.f);
  const t = decoded?.t;
  if (c === undefined || f === undefined || typeof t !== 'string' || !POSTGRES_TIMESTAMP.test(t))
    throw invalidPageToken();
  return { c, t, f };
}
