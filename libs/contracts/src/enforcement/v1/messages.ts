import type { ContractPackage } from '../../packages';
import type { LeaseInput, LeaseStatus } from './leases';

export const ENFORCEMENT_V1: ContractPackage = { name: 'enforcement.v1', version: '1.0.0' };

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

/** PERMISSION_DENIED's ErrorInfo; metadata: `filter`, `hook`, `project`, `lease`. */
export const ENFORCEMENT_DENIED_REASON = 'ENFORCEMENT_DENIED';

/** A filter could not decide, never its policy; the status is the filter's `status_on_error`. */
export const ENFORCEMENT_FILTER_FAILED_REASON = 'ENFORCEMENT_FILTER_FAILED';

/** Also the filter context's `user_id`. */
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
