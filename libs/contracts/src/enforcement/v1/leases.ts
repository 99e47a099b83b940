/**
 * `enforcement.v1`: leases (reservations of resources for a time) as the enforcement-service's
 * ledger holds them, and the decisions its filter chain took about them. AIP-style resource,
 * lowerCamelCase JSON.
 */

/**
 * - `PENDING`: admitted, its start is in the future.
 * - `ACTIVE`: admitted and started.
 * - `TERMINATED`: ended (by a user, by deletion, or its end date passed); `on_end` was sent.
 * - `ERROR`: refused at creation; `statusReason` says why.
 */
export const LEASE_STATUSES = ['PENDING', 'ACTIVE', 'TERMINATED', 'ERROR'] as const;
export type LeaseStatus = (typeof LEASE_STATUSES)[number];

/** Where a lease came from: this API, or a Blazar deployment through `/v1/blazar/…`. */
export type LeaseOrigin = 'API' | 'BLAZAR';

/**
 * Blazar's reservation attributes in lowerCamelCase, and their snake_case names on Blazar's wire
 * (the ExternalService filter and the Blazar endpoint speak snake_case).
 */
export const RESERVATION_ATTRIBUTES = {
  resourceType: 'resource_type',
  min: 'min',
  max: 'max',
  amount: 'amount',
  resourceProperties: 'resource_properties',
  hypervisorProperties: 'hypervisor_properties',
  beforeEnd: 'before_end',
  vcpus: 'vcpus',
  memoryMb: 'memory_mb',
  diskGb: 'disk_gb',
  affinity: 'affinity',
  flavorId: 'flavor_id',
  networkId: 'network_id',
  requiredFloatingips: 'required_floatingips',
  networkName: 'network_name',
  networkDescription: 'network_description',
} as const;

/** Resource types whose size the MaxReservationSize filter knows how to measure. */
export const SIZED_RESOURCE_TYPES = [
  'physical:host',
  'virtual:instance',
  'virtual:floatingip',
] as const;

/**
 * One reservation of a lease. `physical:host` asks for `min`..`max` hosts; `virtual:instance`
 * and `virtual:floatingip` for `amount` of them; the rest are Blazar's plugin attributes.
 */
export interface LeaseReservation {
  /** e.g. `physical:host`, `virtual:instance`, `virtual:floatingip`, `flavor:instance`, `network`. */
  resourceType: string;
  min?: number;
  max?: number;
  amount?: number;
  /** Blazar's JSON filter expression over resource properties, e.g. `["==", "$availability_zone", "az1"]`. */
  resourceProperties?: string;
  hypervisorProperties?: string;
  beforeEnd?: string;
  vcpus?: number;
  memoryMb?: number;
  diskGb?: number;
  affinity?: boolean | null;
  flavorId?: string;
  networkId?: string;
  requiredFloatingips?: string[];
  networkName?: string;
  networkDescription?: string;
}

/** What a client writes on create (and, field by field, on update). */
export interface LeaseInput {
  /** The lease's name (Blazar's `name`); defaults to its id. */
  name?: string;
  /** RFC 3339; a time without an offset is UTC. Omitted on create: now. */
  startDate?: string;
  endDate?: string;
  reservations?: LeaseReservation[];
}

/** `projects/{project}/leases/{lease}` */
export interface Lease {
  /** The lease id (the `leaseId` it was created with, or one the service chose). */
  id: string;
  project: string;
  name: string;
  startDate: string;
  endDate: string;
  reservations: LeaseReservation[];
  status: LeaseStatus;
  /** For ERROR: the denial message. For TERMINATED: how it ended. */
  statusReason?: string;
  origin: LeaseOrigin;
  /** Who created it (the principal, or Blazar's user id). */
  creator: string;
  createTime: string;
  updateTime: string;
  /** When it was terminated. */
  endTime?: string;
}

export type DecisionHook = 'CHECK_CREATE' | 'CHECK_UPDATE' | 'ON_END';
/** ALLOWED / DENIED for checks; NOTIFIED for on_end (which never refuses). */
export type DecisionResult = 'ALLOWED' | 'DENIED' | 'NOTIFIED';
export type FilterStepResult = 'ALLOW' | 'DENY' | 'WOULD_DENY' | 'FAIL_OPEN' | 'ERROR';

/** What one filter said within a decision. */
export interface DecisionStep {
  filter: string;
  mode: 'ENFORCE' | 'DRYRUN';
  result: FilterStepResult;
  message?: string;
}

/** One run of the filter chain about a lease. */
export interface LeaseDecision {
  hook: DecisionHook;
  result: DecisionResult;
  /** The filter that denied (DENIED only). */
  filter?: string;
  /** The denial message (DENIED only). */
  message?: string;
  /** The project is exempted: no filter ran. */
  exempted: boolean;
  /** Every filter that ran, in order, with what it said (dryrun would-denials and fail-opens included). */
  steps: DecisionStep[];
  time: string;
  /** Who asked (the principal, `blazar`, or `system` when the end date passed). */
  actor: string;
  /** The `user_id` of the filter context. */
  userId: string;
  requestId?: string;
}

export interface ListLeasesResponse {
  leases: Lease[];
  nextPageToken?: string;
}

export interface ListDecisionsResponse {
  decisions: LeaseDecision[];
  nextPageToken?: string;
}
