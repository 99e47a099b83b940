import {
  LeaseInput,
  LeaseReservation,
  LeaseStatus,
  RESERVATION_ATTRIBUTES,
  StatusError,
} from '@rollout/contracts';
import { LeaseRequest, Reservation } from './model';
import { parseTimestamp, unstorableTextAt } from './time';

/** How far in the past a new start may be (clock skew, "now" typed a moment ago). */
export const START_GRACE_MS = 5 * 60_000;
export const MAX_RESERVATIONS = 100;
export const MAX_NAME_LENGTH = 255;
const RESOURCE_TYPE = /^[a-z][a-z0-9_-]{0,63}(:[a-z][a-z0-9_-]{0,63})?$/;

type CamelAttribute = keyof typeof RESERVATION_ATTRIBUTES;
const SNAKE_OF = RESERVATION_ATTRIBUTES as Record<string, string>;
const CAMEL_OF: Record<string, CamelAttribute> = Object.fromEntries(
  Object.entries(RESERVATION_ATTRIBUTES).map(([camel, snake]) => [snake, camel as CamelAttribute]),
);
/** Attributes the domain model holds as fields; every other one travels in `extra`. */
const CORE = new Set(['resourceType', 'min', 'max', 'amount', 'resourceProperties']);
const INTEGER_ATTRIBUTES = new Set(['min', 'max', 'amount', 'vcpus', 'memoryMb', 'diskGb']);
const STRING_ATTRIBUTES = new Set([
  'resourceProperties',
  'hypervisorProperties',
  'beforeEnd',
  'flavorId',
  'networkId',
  'networkName',
  'networkDescription',
]);

export interface FieldViolation {
  field: string;
  description: string;
}

export class Violations {
  readonly list: FieldViolation[] = [];
  add(field: string, description: string): void {
    this.list.push({ field, description });
  }
  throwIfAny(what: string): void {
    if (!this.list.length) return;
    const summary = this.list.map((v) => `${v.field} ${v.description}`).join('; ');
    throw StatusError.invalidArgument(`Invalid ${what}: ${summary}.`, this.list);
  }
}

function timestampAt(value: unknown, field: string, problems: Violations): Date | undefined {
  if (typeof value !== 'string') {
    problems.add(field, 'must be an RFC 3339 timestamp such as 2026-11-22T10:00:00Z');
    return undefined;
  }
  const date = parseTimestamp(value);
  if (!date)
    problems.add(
      field,
      `must be an RFC 3339 timestamp such as 2026-11-22T10:00:00Z (got "${value.slice(0, 40)}")`,
    );
  return date;
}

function reservationFromApi(
  input: unknown,
  field: string,
  problems: Violations,
): Reservation | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    problems.add(field, 'must be an object');
    return undefined;
  }
  const r = input as Record<string, unknown>;
  const reservation: Reservation = { resourceType: '' };
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(r)) {
    const at = `${field}.${key}`;
    if (!Object.prototype.hasOwnProperty.call(SNAKE_OF, key)) {
      problems.add(at, 'is not a reservation attribute');
      continue;
    }
    if (value === undefined) continue;
    if (key === 'resourceType') {
      if (typeof value !== 'string' || !RESOURCE_TYPE.test(value))
        problems.add(at, 'must be a resource type such as physical:host');
      else reservation.resourceType = value;
      continue;
    }
    if (
      INTEGER_ATTRIBUTES.has(key) &&
      (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 1_000_000)
    ) {
      problems.add(at, 'must be an integer from 0 to 1000000');
      continue;
    }
    if (STRING_ATTRIBUTES.has(key) && (typeof value !== 'string' || value.length > 4096)) {
      problems.add(at, 'must be a string of at most 4096 characters');
      continue;
    }
    if (key === 'affinity' && value !== null && typeof value !== 'boolean') {
      problems.add(at, 'must be true, false or null');
      continue;
    }
    if (
      key === 'requiredFloatingips' &&
      (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    ) {
      problems.add(at, 'must be a list of IP addresses');
      continue;
    }
    if (CORE.has(key)) (reservation as unknown as Record<string, unknown>)[key] = value;
    else extra[SNAKE_OF[key]] = value;
  }
  if (r.resourceType === undefined) problems.add(`${field}.resourceType`, 'is required');
  if (Object.keys(extra).length) reservation.extra = extra;
  sizeRules(reservation, field, problems);
  return reservation;
}

/** Blazar's own rules for the sizes of the three measured types. */
function sizeRules(r: Reservation, field: string, problems: Violations): void {
  if (r.resourceType === 'physical:host') {
    if (r.min === undefined) problems.add(`${field}.min`, 'is required for physical:host');
    if (r.max === undefined) problems.add(`${field}.max`, 'is required for physical:host');
    if (r.min !== undefined && r.min < 1) problems.add(`${field}.min`, 'must be at least 1');
    if (r.min !== undefined && r.max !== undefined && r.max < r.min)
      problems.add(`${field}.max`, 'must not be less than min');
  } else if (r.resourceType === 'virtual:instance' || r.resourceType === 'virtual:floatingip') {
    if (r.amount === undefined)
      problems.add(`${field}.amount`, `is required for ${r.resourceType}`);
    else if (r.amount < 1) problems.add(`${field}.amount`, 'must be at least 1');
  }
}

function reservationsFromApi(value: unknown, problems: Violations): Reservation[] | undefined {
  if (!Array.isArray(value)) {
    problems.add('reservations', 'must be a list');
    return undefined;
  }
  if (value.length > MAX_RESERVATIONS) {
    problems.add('reservations', `must hold at most ${MAX_RESERVATIONS} reservations`);
    return undefined;
  }
  const out: Reservation[] = [];
  value.forEach((item, i) => {
    const r = reservationFromApi(item, `reservations[${i}]`, problems);
    if (r) out.push(r);
  });
  return out;
}

function nameFrom(value: unknown, problems: Violations): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_NAME_LENGTH) {
    problems.add('name', `must be a non-empty string of at most ${MAX_NAME_LENGTH} characters`);
    return undefined;
  }
  return value;
}

function checkKnownFields(input: object, problems: Violations): void {
  for (const key of Object.keys(input)) {
    if (!['name', 'startDate', 'endDate', 'reservations'].includes(key))
      problems.add(key, 'is not a lease field');
  }
  const unstorable = unstorableTextAt(input, 'lease');
  if (unstorable)
    problems.add(
      unstorable.replace(/^lease\.?/, '') || 'lease',
      'holds a NUL character or an unpaired surrogate',
    );
}

/** `startDate` omitted (or "now") means now, and may be at most START_GRACE_MS in the past. */
export function leaseFromCreate(
  input: LeaseInput | undefined,
  defaultName: string,
  now: Date,
): LeaseRequest {
  const problems = new Violations();
  const body = (input ?? {}) as Record<string, unknown>;
  checkKnownFields(body, problems);
  const name = nameFrom(body.name, problems) ?? defaultName;
  const startDate =
    body.startDate === undefined || body.startDate === 'now'
      ? now
      : timestampAt(body.startDate, 'startDate', problems);
  const endDate =
    body.endDate === undefined
      ? (problems.add('endDate', 'is required'), undefined)
      : timestampAt(body.endDate, 'endDate', problems);
  const reservations =
    body.reservations === undefined ? [] : reservationsFromApi(body.reservations, problems);
  if (startDate && startDate.getTime() < now.getTime() - START_GRACE_MS)
    problems.add('startDate', 'must not be in the past');
  if (startDate && endDate) datesInOrder(startDate, endDate, now, problems);
  problems.throwIfAny('lease');
  return { name, startDate: startDate!, endDate: endDate!, reservations: reservations! };
}

/** A started lease keeps its start. */
export function leaseFromUpdate(
  input: LeaseInput | undefined,
  current: LeaseRequest,
  started: boolean,
  now: Date,
): LeaseRequest {
  const problems = new Violations();
  const body = (input ?? {}) as Record<string, unknown>;
  checkKnownFields(body, problems);
  const name = nameFrom(body.name, problems) ?? current.name;
  let startDate: Date | undefined = current.startDate;
  if (body.startDate !== undefined) {
    startDate = body.startDate === 'now' ? now : timestampAt(body.startDate, 'startDate', problems);
    if (startDate && startDate.getTime() !== current.startDate.getTime()) {
      if (started) problems.add('startDate', 'cannot change once the lease has started');
      else if (startDate.getTime() < now.getTime() - START_GRACE_MS)
        problems.add('startDate', 'must not be in the past');
    }
  }
  const endDate =
    body.endDate === undefined ? current.endDate : timestampAt(body.endDate, 'endDate', problems);
  const reservations =
    body.reservations === undefined
      ? current.reservations
      : reservationsFromApi(body.reservations, problems);
  if (startDate && endDate) datesInOrder(startDate, endDate, now, problems);
  problems.throwIfAny('lease update');
  return { name, startDate: startDate!, endDate: endDate!, reservations: reservations! };
}

function datesInOrder(start: Date, end: Date, now: Date, problems: Violations): void {
  if (end.getTime() <= start.getTime()) problems.add('endDate', 'must be after startDate');
  else if (end.getTime() <= now.getTime()) problems.add('endDate', 'must be in the future');
}

export function admittedStatus(lease: LeaseRequest, now: Date): LeaseStatus {
  return lease.startDate.getTime() <= now.getTime() ? 'ACTIVE' : 'PENDING';
}

const camelOf = (snake: string): string =>
  CAMEL_OF[snake] ?? snake.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

export function reservationToApi(r: Reservation): LeaseReservation {
  const out: Record<string, unknown> = { resourceType: r.resourceType };
  if (r.min !== undefined) out.min = r.min;
  if (r.max !== undefined) out.max = r.max;
  if (r.amount !== undefined) out.amount = r.amount;
  if (r.resourceProperties !== undefined) out.resourceProperties = r.resourceProperties;
  for (const [key, value] of Object.entries(r.extra ?? {})) out[camelOf(key)] = value;
  return out as unknown as LeaseReservation;
}
