import type {
  AdapterStatus as ContractStatus,
  CheckResult,
  LeaseInstance,
  QuotaRequest,
  QuotaResult,
  ReportInstance,
} from '@rollout/contracts';

export type {
  AdapterContext,
  AdapterLease,
  AdapterReservation,
  AdapterTemplate,
  CheckResult,
  QuotaRequest,
  QuotaResult,
} from '@rollout/contracts';
export { ADAPTER_TEMPLATES, OK_STATUS } from '@rollout/contracts';

/** Sent by a third-party process, so its name may be missing or one this version does not know. */
export type AdapterStatus = Omit<ContractStatus, 'status'> & { status?: string };

export type AdapterInstance = LeaseInstance;
export type ReportRecord = ReportInstance;

/** Whether a reply's status admits: `OK`, or google.rpc's numeric OK (code 0) without a name. */
export function isOk(status: AdapterStatus | undefined): boolean {
  return !!status && (status.status === 'OK' || (status.code === 0 && status.status === undefined));
}

/** "Could not decide" rather than "says no": the filter's failure policy applies. */
const FAILURE_CODES = new Set([
  'UNAVAILABLE',
  'DEADLINE_EXCEEDED',
  'INTERNAL',
  'UNKNOWN',
  'UNIMPLEMENTED',
  'DATA_LOSS',
  'CANCELLED',
]);

export function isFailureStatus(status: AdapterStatus | undefined): boolean {
  return !status || typeof status.status !== 'string' || FAILURE_CODES.has(status.status);
}

/** Rejects when the adapter cannot be reached or the handler has no valid session: a failure, by the filter's failure policy. */
export interface AdapterCalls {
  check(handler: string, instance: AdapterInstance): Promise<CheckResult>;
  quota(handler: string, instance: AdapterInstance, request: QuotaRequest): Promise<QuotaResult>;
  report(handler: string, records: ReportRecord[]): Promise<AdapterStatus>;
}
