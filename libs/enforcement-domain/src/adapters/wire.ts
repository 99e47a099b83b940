/**
 * The shapes of the `adapter.v1` contract as the adapter filter sees them (plain JSON over NATS
 * request/reply). Only what the enforcement chain reads or writes; the contract package holds
 * the authoritative schemas.
 */

/** google.rpc.Status as it crosses NATS, with an OK value for success. */
export interface AdapterStatus {
  code: number;
  status: string;
  message: string;
  details?: unknown[];
}

export const OK_STATUS: AdapterStatus = { code: 0, status: 'OK', message: '', details: [] };

export function isOk(status: AdapterStatus | undefined): boolean {
  return !!status && (status.status === 'OK' || (status.code === 0 && status.status === undefined));
}

/**
 * Codes that mean "the adapter could not decide" rather than "the adapter says no": the filter
 * treats them by its failure policy. Every other non-OK status is a denial with its message.
 */
const FAILURE_CODES = new Set(['UNAVAILABLE', 'DEADLINE_EXCEEDED', 'INTERNAL', 'UNKNOWN', 'UNIMPLEMENTED', 'DATA_LOSS', 'CANCELLED']);

export function isFailureStatus(status: AdapterStatus | undefined): boolean {
  return !status || typeof status.status !== 'string' || FAILURE_CODES.has(status.status);
}

export type AdapterTemplate = 'check' | 'quota' | 'report';
export const ADAPTER_TEMPLATES: readonly AdapterTemplate[] = ['check', 'quota', 'report'];

export interface AdapterContext {
  userId: string;
  projectId: string;
  regionName: string;
  requestId: string;
}

export interface AdapterReservation {
  resourceType: string;
  min?: number;
  max?: number;
  amount?: number;
}

export interface AdapterLease {
  /**
   * The ledger's key for the lease, stable for its whole life (quota and reports meet on it);
   * for a Blazar lease `blazar:<name or id>`, since Blazar's check-create carries no id yet.
   */
  id: string;
  /**
   * The lease's id as users see it in the API (`/v1/projects/{projectId}/leases/{apiId}`), so
   * an adapter's records can be matched to it (since adapter.v1 1.1.0).
   */
  apiId?: string;
  name: string;
  /** ISO 8601, UTC, with `Z`. */
  startDate: string;
  endDate: string;
  reservations: AdapterReservation[];
}

export interface AdapterInstance {
  hook: 'create' | 'update';
  context: AdapterContext;
  lease: AdapterLease;
  currentLease?: AdapterLease;
}

export interface CheckResult {
  status: AdapterStatus;
  /** How long the result may be reused, in ms. */
  validDuration: number;
  /** How many times the result may be reused. */
  validUseCount: number;
}

export interface QuotaRequest {
  quotas: Record<string, { amount: number; bestEffort: boolean }>;
  dedupId: string;
}

export interface QuotaResult {
  status: AdapterStatus;
  quotas: Record<string, { validDuration: number; grantedAmount: number }>;
}

export type ReportKind = 'created' | 'updated' | 'ended';

export interface ReportRecord {
  kind: ReportKind;
  context: AdapterContext;
  lease: AdapterLease;
  /** When it happened (ISO 8601 Z); for `ended`, the moment from which the quota is unused. */
  at: string;
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
