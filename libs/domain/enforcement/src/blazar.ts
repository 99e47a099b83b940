import type { BlazarContext } from '@rollout/contracts';
import { Violations } from './lease';
import { EnforcementContext, LeaseRequest, Reservation } from './model';
import { parseTimestamp, unstorableTextAt } from './time';

export interface BlazarLeaseView {
  lease: LeaseRequest;
  id?: string;
  /** Unique within a project: the ledger's key. */
  name?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Numbers may arrive as numeric strings from older Blazar clients. */
function count(value: unknown): number | undefined | null {
  if (value === undefined || value === null) return undefined;
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : null;
}

function reservationFromBlazar(
  value: unknown,
  field: string,
  problems: Violations,
): Reservation | undefined {
  if (!isObject(value)) {
    problems.add(field, 'must be an object');
    return undefined;
  }
  const { resource_type, min, max, amount, resource_properties, ...extra } = value;
  if (typeof resource_type !== 'string' || resource_type === '') {
    problems.add(`${field}.resource_type`, 'is required');
    return undefined;
  }
  const reservation: Reservation = { resourceType: resource_type };
  for (const [key, raw] of [
    ['min', min],
    ['max', max],
    ['amount', amount],
  ] as const) {
    const n = count(raw);
    if (n === null) problems.add(`${field}.${key}`, 'must be a non-negative integer');
    else if (n !== undefined) reservation[key] = n;
  }
  if (resource_properties !== undefined && resource_properties !== null) {
    if (typeof resource_properties === 'string')
      reservation.resourceProperties = resource_properties;
    else reservation.resourceProperties = JSON.stringify(resource_properties);
  }
  // Plugin attributes and Blazar's allocations are kept as sent (ids are stripped on the way out).
  if (Object.keys(extra).length) reservation.extra = extra;
  return reservation;
}

function dateAt(value: unknown, field: string, problems: Violations): Date | undefined {
  const date = typeof value === 'string' ? parseTimestamp(value) : undefined;
  if (!date)
    problems.add(field, 'must be a date such as "2020-05-13 00:00" or "2020-05-13T00:00:00Z"');
  return date;
}

function leaseAt(value: unknown, field: string, problems: Violations): BlazarLeaseView | undefined {
  if (!isObject(value)) {
    problems.add(field, 'must be an object');
    return undefined;
  }
  const start = dateAt(value.start_date, `${field}.start_date`, problems);
  const endField =
    value.end_date === undefined && value.end_time !== undefined ? 'end_time' : 'end_date';
  const end = dateAt(value[endField], `${field}.${endField}`, problems);
  const id = typeof value.id === 'string' && value.id !== '' ? value.id : undefined;
  const name = typeof value.name === 'string' && value.name !== '' ? value.name : undefined;
  if (!id && !name) problems.add(`${field}.name`, 'is needed (or id) to track the lease');
  const reservations: Reservation[] = [];
  if (value.reservations !== undefined && value.reservations !== null) {
    if (!Array.isArray(value.reservations)) problems.add(`${field}.reservations`, 'must be a list');
    else
      value.reservations.forEach((item, i) => {
        const r = reservationFromBlazar(item, `${field}.reservations[${i}]`, problems);
        if (r) reservations.push(r);
      });
  }
  if (start && end && end.getTime() < start.getTime())
    problems.add(`${field}.${endField}`, 'must not be before start_date');
  if (!start || !end) return undefined;
  return {
    lease: { name: name ?? id ?? '', startDate: start, endDate: end, reservations },
    id,
    name,
  };
}

export function contextFromBlazar(
  value: unknown,
  requestId: string,
  defaultRegion: string,
  problems: Violations,
): EnforcementContext | undefined {
  if (!isObject(value)) {
    problems.add('context', 'must be an object');
    return undefined;
  }
  const context = value as BlazarContext;
  if (typeof context.project_id !== 'string' || context.project_id === '') {
    problems.add('context.project_id', 'is required');
    return undefined;
  }
  return {
    projectId: context.project_id,
    userId: typeof context.user_id === 'string' ? context.user_id : '',
    regionName:
      typeof context.region_name === 'string' && context.region_name
        ? context.region_name
        : defaultRegion,
    requestId,
    ...(typeof context.auth_url === 'string' && context.auth_url !== ''
      ? { authUrl: context.auth_url }
      : {}),
  };
}

export interface BlazarCall {
  context: EnforcementContext;
  lease: BlazarLeaseView;
  current?: BlazarLeaseView;
}

/** INVALID_ARGUMENT naming each bad field. */
export function parseBlazarCall(
  payload: unknown,
  withCurrent: boolean,
  requestId: string,
  defaultRegion: string,
): BlazarCall {
  const problems = new Violations();
  const body = isObject(payload) ? payload : {};
  const unstorable = unstorableTextAt(body, 'body');
  if (unstorable) {
    problems.add(
      unstorable.replace(/^body\./, ''),
      'holds a NUL character or an unpaired surrogate',
    );
    problems.throwIfAny('Blazar request');
  }
  const context = contextFromBlazar(body.context, requestId, defaultRegion, problems);
  const current = withCurrent ? leaseAt(body.current_lease, 'current_lease', problems) : undefined;
  const lease = leaseAt(body.lease, 'lease', problems);
  problems.throwIfAny('Blazar request');
  return { context: context!, lease: lease!, ...(withCurrent ? { current: current! } : {}) };
}
