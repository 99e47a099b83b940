/**
 * - `PENDING`: admitted, its start is in the future.
 * - `ACTIVE`: admitted and started.
 * - `TERMINATED`: ended (by a user, by deletion, or its end date passed); `on_end` was sent.
 * - `ERROR`: refused at creation; `statusReason` says why.
 */
export const LEASE_STATUSES = ['PENDING', 'ACTIVE', 'TERMINATED', 'ERROR'] as const;
export type LeaseStatus = (typeof LEASE_STATUSES)[number];

/** `BLAZAR`: through `/v1/blazar/…`. */
export type LeaseOrigin = 'API' | 'BLAZAR';

/** Blazar's snake_case names, spoken by the ExternalService filter and the Blazar endpoint. */
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

/** What the MaxReservationSize filter can measure. */
export const SIZED_RESOURCE_TYPES = [
  'physical:host',
  'virtual:instance',
  'virtual:floatingip',
] as const;

/** `physical:host` takes `min`..`max`, `virtual:*` an `amount`; the rest are Blazar plugins'. */
export interface LeaseReservation {
  /** `physical:host`, `virtual:instance`, `virtual:floatingip`, `flavor:instance`, `network`. */
  resourceType: string;
  min?: number;
  max?: number;
  amount?: number;
  /** Blazar's JSON filter, e.g. `["==", "$availability_zone", "az1"]`. */
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

/** On create, and field by field on update. */
export interface LeaseInput {
  /** Defaults to its id. */
  name?: string;
  /** RFC 3339; a time without an offset is UTC. Omitted on create: now. */
  startDate?: string;
  endDate?: string;
  reservations?: LeaseReservation[];
}

/** `projects/{project}/leases/{lease}` */
export interface Lease {
  /** The `leaseId` it was created with, or one the service chose. */
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
  /** The principal, or Blazar's user id. */
  creator: string;
  createTime: string;
  updateTime: string;
  endTime?: string;
}

export type DecisionHook = 'CHECK_CREATE' | 'CHECK_UPDATE' | 'ON_END';
/** ALLOWED / DENIED for checks; NOTIFIED for on_end (which never refuses). */
export type DecisionResult = 'ALLOWED' | 'DENIED' | 'NOTIFIED';
export type FilterStepResult = 'ALLOW' | 'DENY' | 'WOULD_DENY' | 'FAIL_OPEN' | 'ERROR';

export interface DecisionStep {
  filter: string;
  mode: 'ENFORCE' | 'DRYRUN';
  result: FilterStepResult;
  message?: string;
}

/** One run of the filter chain. */
export interface LeaseDecision {
  hook: DecisionHook;
  result: DecisionResult;
  /** DENIED only. */
  filter?: string;
  /** DENIED only. */
  message?: string;
  /** No filter ran. */
  exempted: boolean;
  /** In order, dry-run would-denials and fail-opens included. */
  steps: DecisionStep[];
  time: string;
  /** The principal, `blazar`, or `system` when the end date passed. */
  actor: string;
  /** The filter context's `user_id`. */
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
