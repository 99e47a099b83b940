import type {
  AdapterStatus as ContractStatus,
  CheckResult,
  LeaseInstance,
  QuotaRequest,
  QuotaResult,
  ReportInstance,
} from '@rollout/contracts';

/**
 * The `adapter.v1` messages the adapter filter reads and writes come from the contract package;
 * this file adds only the filter's reading of a status and its port.
 */
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

/**
 * A status as the service reads it from a reply: the contract's, but sent by a third-party
 * process, so its name may be missing or one this version does not know.
 */
export type AdapterStatus = Omit<ContractStatus, 'status'> & { status?: string };

/** The lease a check or quota call decides about, as the port names it. */
export type AdapterInstance = LeaseInstance;
/** One lifecycle record of HandleReport, as the port names it. */
export type ReportRecord = ReportInstance;

/** Whether a reply's status admits: `OK`, or google.rpc's numeric OK (code 0) without a name. */
export function isOk(status: AdapterStatus | undefined): boolean {
  return !!status && (status.status === 'OK' || (status.code === 0 && status.status === undefined));
}

/**
 * Codes that mean "the adapter could not decide" rather than "the adapter says no": the filter
 * treats them by its failure policy. Every other non-OK status is a denial with its message.
 */
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

/**
 * Port: the calls the adapter filter makes, by handler (the filter's name in the config). The
 * service resolves the handler's session (its id, or the config for adapters without sessions)
 * and the NATS subject; it rejects when the adapter cannot be reached or the handler has no
 * valid session. Every rejection is a failure, treated by the filter's failure policy.
 */
export interface AdapterCalls {
  check(handler: string, instance: AdapterInstance): Promise<CheckResult>;
  quota(handler: string, instance: AdapterInstance, request: QuotaRequest): Promise<QuotaResult>;
  report(handler: string, records: ReportRecord[]): Promise<AdapterStatus>;
}
