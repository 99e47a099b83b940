/**
 * Blazar's external enforcement protocol, as Blazar sends it (snake_case; dates naive, meaning
 * UTC, like `2020-05-13 00:00`, or ISO 8601 with an offset). The gateway serves it at
 * `POST /v1/blazar/check-create | check-update | on-end` and forwards the payloads unchanged on
 * `enforcement.v1.blazar.*`; the service answers with a BlazarVerdict.
 */
export interface BlazarContext {
  user_id?: string;
  project_id: string;
  auth_url?: string;
  region_name?: string;
  [attribute: string]: unknown;
}

export interface BlazarReservationPayload {
  resource_type: string;
  min?: number;
  max?: number;
  amount?: number;
  resource_properties?: string;
  /** Plugin attributes (network_id, hypervisor_properties…) and `allocations`, kept as sent. */
  [attribute: string]: unknown;
}

export interface BlazarLeasePayload {
  /** Blazar's lease id (sent on update and end; not yet known at check-create). */
  id?: string;
  /** Unique within a project in Blazar: the ledger's key for the lease. */
  name?: string;
  start_date: string;
  end_date?: string;
  /** The spec's examples spell the end `end_time`; accepted as an alias of `end_date`. */
  end_time?: string;
  reservations?: BlazarReservationPayload[];
  [attribute: string]: unknown;
}

export interface BlazarCheckCreateRequest {
  context: BlazarContext;
  lease: BlazarLeasePayload;
}

export interface BlazarCheckUpdateRequest {
  context: BlazarContext;
  current_lease: BlazarLeasePayload;
  lease: BlazarLeasePayload;
}

export interface BlazarOnEndRequest {
  context: BlazarContext;
  lease: BlazarLeasePayload;
}

/** 204 when allowed; 403 `{"message": message}` when not. */
export interface BlazarVerdict {
  allowed: boolean;
  message?: string;
}
