/**
 * Blazar's external enforcement protocol as Blazar sends it: snake_case, naive dates meaning UTC
 * (`2020-05-13 00:00`) or ISO 8601 with an offset.
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
  /** Plugin attributes and `allocations`, kept as sent. */
  [attribute: string]: unknown;
}

export interface BlazarLeasePayload {
  /** Not yet known at check-create. */
  id?: string;
  /** Unique within a project in Blazar: the ledger's key. */
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
