import type { ContractPackage } from '../../packages';
import type { StatusDetail, Status } from '../../status';

/**
 * `adapter.v1`: Mixer's adapter model for out-of-process adapters, in plain JSON with no NestJS
 * packet since an adapter may not be written for Node. Every reply carries a `status` instead of
 * failing; replicas share the queue group `{adapter}`, so they must share session state.
 */
export const ADAPTER_V1: ContractPackage = { name: 'adapter.v1', version: '1.2.0' };

export const ADAPTER_TEMPLATES = ['check', 'quota', 'report'] as const;
export type AdapterTemplate = (typeof ADAPTER_TEMPLATES)[number];

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

/** RFC 1035 label. */
export const ADAPTER_NAME = /^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$/;

export function isAdapterName(name: string): boolean {
  return ADAPTER_NAME.test(name);
}

/** Not namespaced: wrap it with the process's `NatsNamespace.subject`. */
export function adapterSubject(adapter: string, method: AdapterMethod): string {
  if (!isAdapterName(adapter))
    throw new Error(`adapter name "${adapter}" is not an RFC 1035 label`);
  return `adapter.v1.${adapter}.${method}`;
}

export function adapterSubjects(adapter: string): Record<AdapterMethod, string> {
  return Object.fromEntries(
    ADAPTER_METHODS.map((method) => [method, adapterSubject(adapter, method)]),
  ) as Record<AdapterMethod, string>;
}

export function adapterQueueGroup(adapter: string): string {
  return adapter;
}

export interface OkStatus {
  code: 200;
  status: 'OK';
  message: string;
  details: StatusDetail[];
}

/** google.rpc.Status, `code` the HTTP status as everywhere in this repo. */
export type AdapterStatus = OkStatus | Status;

export const OK_STATUS: OkStatus = { code: 200, status: 'OK', message: '', details: [] };

export function isOkStatus(status: AdapterStatus | undefined): status is OkStatus {
  return status?.status === 'OK';
}

/** The handler's `params`, opaque to the caller. */
export type AdapterConfig = Record<string, unknown>;

/** Informational. */
export type InferredTypes = Record<string, unknown>;

export type InfoRequest = Record<string, never>;

export interface AdapterInfo {
  /** The `{adapter}` of its subjects. */
  name: string;
  description: string;
  templates: AdapterTemplate[];
  /** false: `Handle*` calls carry the `adapterConfig` itself. */
  sessionBased: boolean;
}

export interface ValidateRequest {
  adapterConfig: AdapterConfig;
  inferredTypes: InferredTypes;
}

/** OK, or INVALID_ARGUMENT with a google.rpc.BadRequest. */
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
 * OK once this reference is released; NOT_FOUND or FAILED_PRECONDITION for an unknown session,
 * which the caller takes as closed. On any other answer, or none, the caller retries later.
 */
export interface CloseSessionResponse {
  status: AdapterStatus;
}

export interface AdapterContext {
  userId: string;
  projectId: string;
  regionName: string;
  requestId: string;
}

export interface AdapterReservation {
  /** Also the quota names: `physical:host`, `virtual:instance`. */
  resourceType: string;
  min?: number;
  max?: number;
  amount?: number;
}

export interface AdapterLease {
  /** Stable for the lease's life, so its quota and reports meet on it (`blazar:<name or id>`). */
  id: string;
  /** The id in the API (`/v1/projects/{projectId}/leases/{apiId}`). Since 1.1.0. */
  apiId?: string;
  name: string;
  /** ISO 8601 UTC (`…Z`). */
  startDate: string;
  /** ISO 8601 UTC (`…Z`). */
  endDate: string;
  reservations: AdapterReservation[];
}

export interface LeaseInstance {
  hook: 'create' | 'update';
  context: AdapterContext;
  lease: AdapterLease;
  /** On `update`: before the update. */
  currentLease?: AdapterLease;
}

export interface HandleCheckRequest {
  sessionId?: string;
  adapterConfig?: AdapterConfig;
  instance: LeaseInstance;
}

export interface CheckResult {
  /** OK admits; PERMISSION_DENIED (or another code) refuses, with the message shown to the user. */
  status: AdapterStatus;
  /**
   * How long the caller may reuse this result, in ms.
   * @minimum 0
   */
  validDuration: number;
  /** @minimum 0 */
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
  /** By resource type (`physical:host`). */
  quotas: Record<string, QuotaArgs>;
  /** A retry with the same id gets the first result. */
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
   * In ms.
   * @minimum 0
   */
  validDuration: number;
  /** @minimum 0 */
  grantedAmount: number;
}

export interface QuotaResult {
  status: AdapterStatus;
  /** Every quota asked for. */
  quotas: Record<string, QuotaGrant>;
}

/** `ended`: the hours from `at` to `endDate` are unused; a failed create ends at `startDate`. */
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
