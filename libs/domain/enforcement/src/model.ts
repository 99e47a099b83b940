import type { LeaseOrigin, LeaseStatus, StatusCode } from '@rollout/contracts';

/** Who is asking, and where (Blazar's filter `context`). */
export interface EnforcementContext {
  /** For updates: the user making the change, not the lease owner. */
  userId: string;
  projectId: string;
  regionName: string;
  requestId: string;
  /**
   * The id adapters key quota and reports by: the ledger's `uid` for a lease of the API, Blazar's
   * name for Blazar's. Never sent to an ExternalService.
   */
  adapterLeaseId?: string;
  /**
   * The lease's id as users see it in this service's API (`/v1/projects/{project}/leases/{id}`),
   * when the lease has one: sent to adapters as `apiId` and to an ExternalService as the lease's
   * `id`, so their records can be matched to the API.
   */
  apiLeaseId?: string;
  /** Keystone's URL, when Blazar sent one in its context: an ExternalService receives it as `auth_url`. */
  authUrl?: string;
  /**
   * on_end only: when the lease ended (ISO 8601), so that a notification sent again later (a
   * retry) still reports the moment the lease stopped using its resources, not the retry's.
   */
  endedAt?: string;
}

/**
 * One reservation of a lease. `physical:host` sizes by `max`, the virtual types by `amount`;
 * plugin-specific attributes (e.g. `network_id`) travel in `extra` untouched.
 */
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

/**
 * A lease the ledger holds. Its two ids differ: `leaseId` is the API's
 * (`/v1/projects/{project}/leases/{leaseId}`), `uid` the ledger's own, which decisions and the
 * on_end outbox refer to and adapters key an API lease by.
 */
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
/** What a filter that fails (throws, times out) means for a check: refuse (`closed`) or allow (`open`). */
export type FailurePolicy = 'open' | 'closed';

/**
 * A filter denies by returning this; allowing is returning nothing. `failure` marks a denial
 * caused by the filter failing to decide (its service errored, timed out or answered nonsense)
 * rather than by its policy; `status` is the canonical code the caller answers with.
 */
export interface Denial {
  message: string;
  failure?: { status: StatusCode };
}

/**
 * A filter that could not decide (e.g. its remote service failed) and was configured to fail open
 * reports it so the chain can count it; the request passes.
 */
export interface FailOpen {
  failOpen: string;
}

export type FilterResult = Denial | FailOpen | void;

/**
 * Every hook is async so that a filter may be remote (HTTP, another process over NATS):
 * the chain awaits each in turn.
 */
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
  /** Optional notifications after the ledger committed an admitted create or update. */
  onCreated?(context: EnforcementContext, lease: LeaseRequest): Promise<void>;
  onUpdated?(context: EnforcementContext, before: LeaseRequest, after: LeaseRequest): Promise<void>;
  /**
   * Optional: a create (no `current`) or an update this filter allowed was not carried out (a
   * later filter refused it, or writing it failed): undo what the check took (e.g. quota).
   */
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
