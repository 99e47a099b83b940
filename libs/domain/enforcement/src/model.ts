import type { LeaseOrigin, LeaseStatus, StatusCode } from '@rollout/contracts';

/** Who is asking, and where (Blazar's filter `context`). */
export interface EnforcementContext {
  /** For updates: the user making the change, not the lease owner. */
  userId: string;
  projectId: string;
  regionName: string;
  requestId: string;
  /** The ledger's `uid` for a lease of the API, Blazar's name for Blazar's. Never sent to an ExternalService. */
  adapterLeaseId?: string;
  /** Sent to adapters as `apiId` and to an ExternalService as `id`, so their records match the API. */
  apiLeaseId?: string;
  /** Sent to an ExternalService as `auth_url`. */
  authUrl?: string;
  /** on_end only (ISO 8601): a retried notification still reports when the lease stopped, not the retry's time. */
  endedAt?: string;
}

/** Plugin-specific attributes (e.g. `network_id`) travel in `extra` untouched. */
export interface Reservation {
  resourceType: string;
  min?: number;
  max?: number;
  amount?: number;
  resourceProperties?: string;
  extra?: Record<string, unknown>;
}

/** The user-controllable view of a lease that filters see (no ids or bookkeeping fields). */
export interface LeaseRequest {
  name: string;
  startDate: Date;
  endDate: Date;
  reservations: Reservation[];
}

/** `leaseId` is the API's; `uid` the ledger's own, which decisions and the on_end outbox refer to. */
export interface Lease extends LeaseRequest {
  uid: string;
  leaseId: string;
  project: string;
  origin: LeaseOrigin;
  blazarName: string | null;
  blazarId: string | null;
  status: LeaseStatus;
  statusReason: string | null;
  creator: string;
  regionName: string;
  createTime: Date;
  updateTime: Date;
  endTime: Date | null;
  onEndSent: boolean;
}

export type Hook = 'check_create' | 'check_update' | 'on_end';
export type FilterMode = 'enforce' | 'dryrun';
export type FailurePolicy = 'open' | 'closed';

/** `failure` marks a denial by a filter that failed to decide (error, timeout, nonsense) rather than by its policy. */
export interface Denial {
  message: string;
  failure?: { status: StatusCode };
}

/** A filter configured to fail open reports its failure so the chain can count it; the request passes. */
export interface FailOpen {
  failOpen: string;
}

export type FilterResult = Denial | FailOpen | void;

/** Every hook is async so that a filter may be remote (HTTP, NATS). */
export interface EnforcementFilter {
  readonly name: string;
  /** `liveLeases`: the project's PENDING and ACTIVE leases, counted under its lock, this one excluded. */
  checkCreate(
    context: EnforcementContext,
    lease: LeaseRequest,
    liveLeases: number,
  ): Promise<FilterResult>;
  checkUpdate(
    context: EnforcementContext,
    current: LeaseRequest,
    lease: LeaseRequest,
  ): Promise<FilterResult>;
  onEnd(context: EnforcementContext, lease: LeaseRequest): Promise<void>;
  onCreated?(context: EnforcementContext, lease: LeaseRequest): Promise<void>;
  onUpdated?(context: EnforcementContext, before: LeaseRequest, after: LeaseRequest): Promise<void>;
  /** A create or update this filter allowed was not carried out: undo what the check took (e.g. quota). */
  onAborted?(
    context: EnforcementContext,
    lease: LeaseRequest,
    current?: LeaseRequest,
  ): Promise<void>;
}

export const isDenial = (r: FilterResult): r is Denial =>
  typeof r === 'object' && r !== null && 'message' in r;
export const isFailOpen = (r: FilterResult): r is FailOpen =>
  typeof r === 'object' && r !== null && 'failOpen' in r;
