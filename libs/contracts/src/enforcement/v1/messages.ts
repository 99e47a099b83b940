import type { ContractPackage } from '../../packages';
import type { LeaseInput, LeaseStatus } from './leases';

export const ENFORCEMENT_V1: ContractPackage = { name: 'enforcement.v1', version: '1.0.0' };

/**
 * Request/reply subjects served by the enforcement-service (queue group enforcement-service).
 * Errors cross as google.rpc.Status; a refused create or update is PERMISSION_DENIED whose
 * message is the filter's and whose ErrorInfo (reason ENFORCEMENT_DENIED) names the filter.
 */
export const ENFORCEMENT_SUBJECTS = {
  createLease: 'enforcement.v1.leases.create',
  getLease: 'enforcement.v1.leases.get',
  listLeases: 'enforcement.v1.leases.list',
  updateLease: 'enforcement.v1.leases.update',
  endLease: 'enforcement.v1.leases.end',
  deleteLease: 'enforcement.v1.leases.delete',
  listDecisions: 'enforcement.v1.leases.decisions',
  blazarCheckCreate: 'enforcement.v1.blazar.checkCreate',
  blazarCheckUpdate: 'enforcement.v1.blazar.checkUpdate',
  blazarOnEnd: 'enforcement.v1.blazar.onEnd',
} as const;

/** ErrorInfo reason of a refusal by a filter's policy; metadata: `filter`, `hook`, `project`, `lease`. */
export const ENFORCEMENT_DENIED_REASON = 'ENFORCEMENT_DENIED';

/**
 * ErrorInfo reason of a refusal because a filter could not decide (its service answered an
 * error, timed out or was unreachable, or the filter failed), never because of its policy; same
 * metadata. Its status is the filter's `status_on_error` (PERMISSION_DENIED by default).
 */
export const ENFORCEMENT_FILTER_FAILED_REASON = 'ENFORCEMENT_FILTER_FAILED';

/** Who asks: recorded on every decision, and the filter context's `user_id`. */
export interface LeaseCaller {
  actor: string;
}

export interface LeaseRef {
  project: string;
  leaseId: string;
}

export interface CreateLeaseRequest extends LeaseCaller {
  project: string;
  /** AIP-122 id; the service chooses one when absent. */
  leaseId?: string;
  lease: LeaseInput;
}

export type GetLeaseRequest = LeaseRef;

export interface ListLeasesRequest {
  project: string;
  /** Only leases in one of these statuses. */
  statuses?: LeaseStatus[];
  pageSize?: number;
  pageToken?: string;
}

/** The fields present replace the lease's; the others stay. */
export interface UpdateLeaseRequest extends LeaseRef, LeaseCaller {
  lease: LeaseInput;
}

export type EndLeaseRequest = LeaseRef & LeaseCaller;
export type DeleteLeaseRequest = LeaseRef & LeaseCaller;

export interface ListDecisionsRequest extends LeaseRef {
  pageSize?: number;
  pageToken?: string;
}
