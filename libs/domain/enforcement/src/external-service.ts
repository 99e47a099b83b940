import type { StatusCode } from '@rollout/contracts';
import {
  EnforcementContext,
  EnforcementFilter,
  FilterResult,
  LeaseRequest,
  Reservation,
} from './model';
import { storableText } from './time';

/** Envoy ext_authz's `status_on_error` is an HTTP status too; 403 is the default, as in Envoy. */
export const STATUS_ON_ERROR: Readonly<Record<number, StatusCode>> = {
  403: 'PERMISSION_DENIED',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export interface ExternalHttpResponse {
  status: number;
  body: unknown;
}

export type ExternalHook = 'check-create' | 'check-update' | 'on-end';

/**
 * The adapter must not follow redirects, and rejects on transport errors and timeouts with a
 * message fit for the user ("no answer within 2000 ms": no address, no stack).
 */
export interface ExternalHttpPort {
  post(
    url: string,
    body: unknown,
    options: { headers: Record<string, string>; timeoutMs: number; hook: ExternalHook },
  ): Promise<ExternalHttpResponse>;
}

export interface ExternalServiceSettings {
  /** `v1/<hook>` is appended unless the path already ends in `/v1/` (see hookUrl). */
  endpoint: string;
  /** `x-auth-token` sends `X-Auth-Token: <token>`, `bearer` sends `Authorization: Bearer <token>`. */
  auth: 'x-auth-token' | 'bearer';
  token: string;
  timeoutMs: number;
  allowOnError: boolean;
  /** Keystone's URL for the context's `auth_url` (Blazar's own context wins when it sent one). */
  authUrl?: string;
  /** A 403 from the service is a policy denial and always PERMISSION_DENIED; this answers the service failing. */
  statusOnError: StatusCode;
}

/** The URL of one hook (`http://policy/` → `http://policy/v1/check-create`, `http://policy/v1/` → the same). */
export function hookUrl(endpoint: string, hook: ExternalHook): string {
  const base = endpoint.endsWith('/') ? endpoint : `${endpoint}/`;
  return new URL(base).pathname.endsWith('/v1/') ? `${base}${hook}` : `${base}v1/${hook}`;
}

export const EXTERNAL_DEFAULT_DENIAL = 'External service enforcement filter denied the request.';

/** Blazar's wire shapes (snake_case). Only user-controllable fields leave the service. */
export interface BlazarContext {
  user_id: string;
  project_id: string;
  /** Always a string, as Blazar's: Keystone's URL, or `""` when none is known. */
  auth_url: string;
  region_name: string;
}

export interface BlazarReservation {
  resource_type: string;
  min?: number;
  max?: number;
  amount?: number;
  resource_properties?: string;
  [pluginAttribute: string]: unknown;
}

export interface BlazarLease {
  /** The lease's id as users see it: on `current_lease` and on-end's `lease`, as Blazar sends its stored lease there. */
  id?: string;
  name: string;
  start_date: string;
  end_date: string;
  reservations: BlazarReservation[];
}

/**
 * Blazar always sends `auth_url` as a string (without an identity endpoint it calls no filter), so
 * a receiver may read it as one: Blazar's own, else the configured one, else `""`.
 */
export function toBlazarContext(context: EnforcementContext, authUrl?: string): BlazarContext {
  return {
    user_id: context.userId,
    project_id: context.projectId,
    auth_url: context.authUrl ?? authUrl ?? '',
    region_name: context.regionName,
  };
}

export function toBlazarLease(lease: LeaseRequest, id?: string): BlazarLease {
  return {
    ...(id ? { id } : {}),
    name: lease.name,
    start_date: lease.startDate.toISOString(),
    end_date: lease.endDate.toISOString(),
    reservations: lease.reservations.map(toBlazarReservation),
  };
}

/** Blazar's spec: "UUIDs and other internal bookkeeping attributes will not be sent". */
export const BOOKKEEPING_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'lease_id',
  'reservation_id',
  'resource_id',
  'project_id',
  'user_id',
  'trust_id',
  'status',
  'status_reason',
  'created_at',
  'updated_at',
  'deleted',
  'deleted_at',
  'missing_resources',
  'resources_changed',
]);

function toBlazarReservation(r: Reservation): BlazarReservation {
  const out: BlazarReservation = { resource_type: r.resourceType };
  if (r.min !== undefined) out.min = r.min;
  if (r.max !== undefined) out.max = r.max;
  if (r.amount !== undefined) out.amount = r.amount;
  if (r.resourceProperties !== undefined) out.resource_properties = r.resourceProperties;
  for (const [key, value] of Object.entries(r.extra ?? {})) {
    if (!(key in out) && !BOOKKEEPING_FIELDS.has(key)) out[key] = value;
  }
  return out;
}

export class ExternalServiceFilter implements EnforcementFilter {
  readonly name = 'ExternalService';

  constructor(
    private readonly settings: ExternalServiceSettings,
    private readonly http: ExternalHttpPort,
  ) {}

  checkCreate(context: EnforcementContext, lease: LeaseRequest): Promise<FilterResult> {
    return this.check(
      'check-create',
      { context: this.context(context), lease: toBlazarLease(lease) },
      context.requestId,
    );
  }

  /** As Blazar: `current_lease` is the stored lease (with its id), `lease` the values asked for. */
  checkUpdate(
    context: EnforcementContext,
    current: LeaseRequest,
    lease: LeaseRequest,
  ): Promise<FilterResult> {
    return this.check(
      'check-update',
      {
        context: this.context(context),
        current_lease: toBlazarLease(current, context.apiLeaseId),
        lease: toBlazarLease(lease),
      },
      context.requestId,
    );
  }

  /** Any answer but a 2xx is thrown so that the on_end outbox retries; the lease's `id` lets the receiver drop a repeat. */
  async onEnd(context: EnforcementContext, lease: LeaseRequest): Promise<void> {
    const response = await this.post(
      'on-end',
      { context: this.context(context), lease: toBlazarLease(lease, context.apiLeaseId) },
      context.requestId,
    );
    if (response.status < 200 || response.status > 299)
      throw new Error(`External service answered on-end with HTTP ${response.status}.`);
  }

  private context(context: EnforcementContext): BlazarContext {
    return toBlazarContext(context, this.settings.authUrl);
  }

  private async check(
    path: ExternalHook,
    payload: unknown,
    requestId: string,
  ): Promise<FilterResult> {
    let response: ExternalHttpResponse;
    try {
      response = await this.post(path, payload, requestId);
    } catch (error) {
      return this.onError(
        `External service call to ${path} failed: ${error instanceof Error ? error.message : String(error)}.`,
      );
    }
    if (response.status === 204) return;
    if (response.status === 403) return { message: denialMessage(response.body) };
    return this.onError(`External service answered ${path} with HTTP ${response.status}.`);
  }

  private onError(reason: string): FilterResult {
    return this.settings.allowOnError
      ? { failOpen: reason }
      : { message: reason, failure: { status: this.settings.statusOnError } };
  }

  private post(
    path: ExternalHook,
    payload: unknown,
    requestId: string,
  ): Promise<ExternalHttpResponse> {
    const headers: Record<string, string> =
      this.settings.auth === 'bearer'
        ? { Authorization: `Bearer ${this.settings.token}` }
        : { 'X-Auth-Token': this.settings.token };
    // The request id travels as a header, so the body stays exactly Blazar's.
    if (requestId) headers['X-Request-Id'] = requestId;
    return this.http.post(hookUrl(this.settings.endpoint, path), payload, {
      headers,
      timeoutMs: this.settings.timeoutMs,
      hook: path,
    });
  }
}

function denialMessage(body: unknown): string {
  if (typeof body === 'object' && body !== null) {
    const { message, error } = body as { message?: unknown; error?: unknown };
    // The service's words reach the user and the ledger: bounded, and storable.
    if (typeof message === 'string' && message.trim() !== '') return storableText(message);
    if (typeof error === 'string' && error.trim() !== '') return storableText(error);
  }
  return EXTERNAL_DEFAULT_DENIAL;
}
