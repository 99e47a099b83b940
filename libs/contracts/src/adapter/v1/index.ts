import type { ContractPackage } from '../../packages';
import type { StatusDetail, Status } from '../../status';

/**
 * `adapter.v1`: the contract between the enforcement-service and an out-of-process policy
 * adapter (Mixer's adapter model). Plain JSON over NATS request/reply, no NestJS packet: an
 * adapter is a third-party process, possibly not written for Node. Every reply carries a `status`
 * instead of failing the request (`INVALID_ARGUMENT` to a body it cannot parse);
 * `Contract-Version` and `User-Agent` travel in headers. An adapter subscribes to
 * `adapter.v1.{adapter}.{method}` in queue group `{adapter}`, so replicas share requests (and
 * must share session state). The caller calls `Info`, `Validate`s a config, `CreateSession` with
 * it (one config may return the same session: the adapter counts references), `Handle*`, and
 * `CloseSession` when the config changes or it stops; `Handle*` on an unknown or closed session
 * answers `FAILED_PRECONDITION`. A sessionless adapter gets `adapterConfig` with every call.
 */
export const ADAPTER_V1: ContractPackage = { name: 'adapter.v1', version: '1.2.0' };

/** The templates (kinds of calls) an adapter may serve. */
export const ADAPTER_TEMPLATES = ['check', 'quota', 'report'] as const;
export type AdapterTemplate = (typeof ADAPTER_TEMPLATES)[number];

/** The methods of an adapter, one NATS subject each. */
export const ADAPTER_METHODS = [
  'info',
  'validate',
  'createSession',
  'closeSession',
  'handleCheck',
  'handleQuota',
  'handleReport',
] as const;
export type AdapterMethod = (typeof ADAPTER_METHODS)[number];

/** An adapter name is an RFC 1035 label: `acme-budget`. */
export const ADAPTER_NAME = /^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$/;

export function isAdapterName(name: string): boolean {
  return ADAPTER_NAME.test(name);
}

/**
 * `adapter.v1.{adapter}.{method}` (not namespaced: wrap it with the process's
 * `NatsNamespace.subject`). Throws on a name that is not an RFC 1035 label.
 */
export function adapterSubject(adapter: string, method: AdapterMethod): string {
  if (!isAdapterName(adapter))
    throw new Error(`adapter name "${adapter}" is not an RFC 1035 label`);
  return `adapter.v1.${adapter}.${method}`;
}

/** Every subject of one adapter, by method. */
export function adapterSubjects(adapter: string): Record<AdapterMethod, string> {
  return Object.fromEntries(
    ADAPTER_METHODS.map((method) => [method, adapterSubject(adapter, method)]),
  ) as Record<AdapterMethod, string>;
}

/** The queue group an adapter's replicas subscribe with: the adapter's name. */
export function adapterQueueGroup(adapter: string): string {
  return adapter;
}

/** The success status of an adapter reply. */
export interface OkStatus {
  code: 200;
  status: 'OK';
  message: string;
  details: StatusDetail[];
}

/**
 * The `status` of every adapter reply: google.rpc.Status (`{code, status, message, details}`,
 * `code` the HTTP status as everywhere in this repo) or its OK value `{code: 200, status: 'OK'}`.
 */
export type AdapterStatus = OkStatus | Status;

export const OK_STATUS: OkStatus = { code: 200, status: 'OK', message: '', details: [] };

export function isOkStatus(status: AdapterStatus | undefined): status is OkStatus {
  return status?.status === 'OK';
}

/** An adapter's own configuration (the handler's `params`), opaque to the caller. */
export type AdapterConfig = Record<string, unknown>;

/** Types the caller inferred for the instances it will send (informational). */
export type InferredTypes = Record<string, unknown>;

/** `adapter.v1.{adapter}.info` carries nothing. */
export type InfoRequest = Record<string, never>;

export interface AdapterInfo {
  /** RFC 1035 label, the `{adapter}` of its subjects. */
  name: string;
  description: string;
  templates: AdapterTemplate[];
  /** Whether `Handle*` calls carry a `sessionId` (true) or the `adapterConfig` itself (false). */
  sessionBased: boolean;
}

export interface ValidateRequest {
  adapterConfig: AdapterConfig;
  inferredTypes: InferredTypes;
}

/** OK, or INVALID_ARGUMENT naming the offending fields (google.rpc.BadRequest). */
export interface ValidateResponse {
  status: AdapterStatus;
}

export interface CreateSessionRequest {
  adapterConfig: AdapterConfig;
  inferredTypes: InferredTypes;
}

export interface CreateSessionResponse {
  /** Empty when `status` is not OK. The same config may return the same id (reference counted). */
  sessionId: string;
  /** Not OK: the caller sends this handler no requests and applies its failure policy. */
  status: AdapterStatus;
}

export interface CloseSessionRequest {
  sessionId: string;
}

/**
 * OK once the session (or this reference to it) is released. A session the adapter does not
 * know (never made, closed already, lost with its state) is answered NOT_FOUND or
 * FAILED_PRECONDITION, which the caller takes as closed. Any other answer, or none, and the
 * caller sends CloseSession again later, until one of those comes back.
 */
export interface CloseSessionResponse {
  status: AdapterStatus;
}

/** Who asks, as the enforcement chain knows it. */
export interface AdapterContext {
  userId: string;
  projectId: string;
  regionName: string;
  requestId: string;
}

/** One reservation of an `AdapterLease`. */
export interface AdapterReservation {
  /** e.g. `physical:host`, `virtual:instance`: also the quota names. */
  resourceType: string;
  min?: number;
  max?: number;
  amount?: number;
}

export interface AdapterLease {
  /**
   * The enforcement-service's key for the lease, stable for its whole life: quota and reports
   * of one lease meet on it (for a Blazar lease `blazar:<name or id>`).
   */
  id: string;
  /**
   * The lease's id as users see it in the API (`/v1/projects/{projectId}/leases/{apiId}`), so
   * an adapter's records can be matched to it. Since 1.1.0.
   */
  apiId?: string;
  name: string;
  /** ISO 8601 UTC (`…Z`). */
  startDate: string;
  /** ISO 8601 UTC (`…Z`). */
  endDate: string;
  reservations: AdapterReservation[];
}

/** The lease a check or quota call decides about. */
export interface LeaseInstance {
  hook: 'create' | 'update';
  context: AdapterContext;
  lease: AdapterLease;
  /** On `update`: the lease as it stands before the update. */
  currentLease?: AdapterLease;
}

/** `sessionId` for a session-based adapter; `adapterConfig` for one that is not. */
export interface HandleCheckRequest {
  sessionId?: string;
  adapterConfig?: AdapterConfig;
  instance: LeaseInstance;
}

export interface CheckResult {
  /** OK admits; PERMISSION_DENIED (or another code) refuses, with the message shown to the user. */
  status: AdapterStatus;
  /**
   * How long the caller may reuse this result, in ms (an integer ≥ 0).
   * @minimum 0
   */
  validDuration: number;
  /**
   * How many times the caller may reuse this result (an integer ≥ 0).
   * @minimum 0
   */
  validUseCount: number;
}

export interface QuotaArgs {
  /**
   * Resource-hours asked for.
   * @minimum 0
   */
  amount: number;
  /** true: grant whatever is left (≥ 0); false: exactly 0 or the full amount (or more). */
  bestEffort: boolean;
}

export interface QuotaRequest {
  /** By quota name: a resource type (`physical:host`). */
  quotas: Record<string, QuotaArgs>;
  /** A retried request with the same id is granted once (the first result is returned). */
  dedupId: string;
}

export interface HandleQuotaRequest {
  sessionId?: string;
  adapterConfig?: AdapterConfig;
  instance: LeaseInstance;
  quotaRequest: QuotaRequest;
}

export interface QuotaGrant {
  /**
   * How long the grant holds, in ms (an integer ≥ 0).
   * @minimum 0
   */
  validDuration: number;
  /**
   * @minimum 0
   */
  grantedAmount: number;
}

export interface QuotaResult {
  status: AdapterStatus;
  /** By quota name, every quota asked for. */
  quotas: Record<string, QuotaGrant>;
}

/**
 * A lease lifecycle record. `created`: admitted. `updated`: `lease` replaces the previous lease
 * for accounting. `ended`: the lease ended at `at`; the quota of the hours from `at` to its
 * `endDate` is unused (a create that failed after quota was granted is reported `ended` at its
 * `startDate`: a full refund).
 */
export interface ReportInstance {
  kind: 'created' | 'updated' | 'ended';
  context: AdapterContext;
  lease: AdapterLease;
  /** ISO 8601 UTC (`…Z`). */
  at: string;
}

export interface HandleReportRequest {
  sessionId?: string;
  adapterConfig?: AdapterConfig;
  instances: ReportInstance[];
}

export interface HandleReportResponse {
  status: AdapterStatus;
}
