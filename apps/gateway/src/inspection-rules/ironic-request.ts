import {
  ImportInspectionRulesRequest,
  InspectionPhase,
  InspectionRuleSortKey,
  JsonPatchOperation,
  ListInspectionRulesRequest,
  StatusError,
} from '@rollout/contracts';
import type { FastifyRequest } from 'fastify';
import type { ListInspectionRulesQueryDto } from './inspection-rules.dto';
import {
  DEFAULT_LIST_FIELDS,
  FieldsError,
  ListQuery,
  malformedUuid,
  parseBoolean,
  parseFields,
} from './ironic-api';

const MAX_LIMIT = 1000;

/** Where the client reached the gateway: Ironic's links and `next` are absolute. */
export function baseUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.headers.host ?? request.hostname}`;
}

/** Ironic checks the path's uuid before anything else (400, not 404). */
export function requireUuid(uuid: string): void {
  const problem = malformedUuid(uuid);
  if (problem)
    throw StatusError.invalidArgument(problem, [
      { field: 'inspection_rule_uuid', description: 'must be a UUID' },
    ]);
}

export function fieldsOf(value: string | undefined): string[] | undefined {
  try {
    return parseFields(value);
  } catch (error) {
    if (error instanceof FieldsError)
      throw StatusError.invalidArgument(error.message, [
        { field: 'fields', description: error.message },
      ]);
    throw error;
  }
}

export function listQuery(query: ListInspectionRulesQueryDto): ListQuery & { marker?: string } {
  const refuse = (field: string, message: string) =>
    StatusError.invalidArgument(message, [{ field, description: message }]);
  const detail = parseBoolean(query.detail);
  if (query.detail !== undefined && detail === undefined) {
    throw refuse('detail', `Invalid value for detail: ${query.detail}, it must be a boolean`);
  }
  const fields = fieldsOf(query.fields);
  if (fields !== undefined && detail)
    throw refuse('detail', 'Can not specify ?detail=True and fields in the same request.');
  let limit = MAX_LIMIT;
  if (query.limit !== undefined) {
    if (!/^-?\d+$/.test(query.limit.trim()))
      throw refuse('limit', `Schema error: '${query.limit}' is not of type 'integer'`);
    const asked = Number(query.limit);
    if (asked <= 0) throw refuse('limit', 'Limit must be positive');
    // As Ironic's max_limit: a larger limit is lowered, not refused.
    limit = Math.min(asked, MAX_LIMIT);
  }
  const sortKey = query.sort_key ?? 'id';
  if (sortKey === 'conditions' || sortKey === 'actions')
    throw refuse('sort_key', `The sort_key value ${sortKey} is an invalid field for sorting`);
  return {
    limit,
    sort_key: sortKey,
    sort_dir: query.sort_dir ?? 'asc',
    ...(detail !== undefined ? { detail } : {}),
    fields: fields ?? (detail ? undefined : DEFAULT_LIST_FIELDS),
    ...(query.phase !== undefined ? { phase: query.phase } : {}),
    ...(query.scope !== undefined ? { scope: query.scope } : {}),
    ...(query.marker !== undefined ? { marker: query.marker } : {}),
  };
}

function requireBody(body: unknown): void {
  if (body === undefined || body === null || (typeof body === 'string' && !body.trim())) {
    throw StatusError.invalidArgument('The body is empty.');
  }
}

export function listRequest(read: ListQuery & { marker?: string }): ListInspectionRulesRequest {
  return {
    detail: true,
    scope: read.scope,
    phase: read.phase as InspectionPhase | undefined,
    limit: read.limit,
    marker: read.marker,
    sort_key: read.sort_key as InspectionRuleSortKey,
    sort_dir: read.sort_dir as 'asc' | 'desc',
  };
}

export function importRequest(body: unknown): Omit<ImportInspectionRulesRequest, 'actor'> {
  requireBody(body);
  return typeof body === 'string' ? { yaml: body } : { rules: body };
}

export function jsonPatch(body: unknown): JsonPatchOperation[] {
  requireBody(body);
  if (!Array.isArray(body))
    throw StatusError.invalidArgument('A JSON Patch is a list of operations.');
  return body as JsonPatchOperation[];
}
