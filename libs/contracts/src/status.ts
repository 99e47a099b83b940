/** google.rpc.Status as AIP-193 renders it, to clients and between services alike. */
export const STATUS_CODES = {
  CANCELLED: { grpc: 1, http: 499 },
  UNKNOWN: { grpc: 2, http: 500 },
  INVALID_ARGUMENT: { grpc: 3, http: 400 },
  DEADLINE_EXCEEDED: { grpc: 4, http: 504 },
  NOT_FOUND: { grpc: 5, http: 404 },
  ALREADY_EXISTS: { grpc: 6, http: 409 },
  PERMISSION_DENIED: { grpc: 7, http: 403 },
  RESOURCE_EXHAUSTED: { grpc: 8, http: 429 },
  FAILED_PRECONDITION: { grpc: 9, http: 400 },
  ABORTED: { grpc: 10, http: 409 },
  OUT_OF_RANGE: { grpc: 11, http: 400 },
  UNIMPLEMENTED: { grpc: 12, http: 501 },
  INTERNAL: { grpc: 13, http: 500 },
  UNAVAILABLE: { grpc: 14, http: 503 },
  DATA_LOSS: { grpc: 15, http: 500 },
  UNAUTHENTICATED: { grpc: 16, http: 401 },
} as const;

export type StatusCode = keyof typeof STATUS_CODES;

export interface ErrorInfoDetail {
  '@type': 'type.googleapis.com/google.rpc.ErrorInfo';
  reason: string;
  domain: string;
  metadata?: Record<string, string>;
}

export interface BadRequestDetail {
  '@type': 'type.googleapis.com/google.rpc.BadRequest';
  fieldViolations: { field: string; description: string }[];
}

export interface RequestInfoDetail {
  '@type': 'type.googleapis.com/google.rpc.RequestInfo';
  requestId: string;
  servingData?: string;
}

/** What must hold before the request can succeed, one violation each (e.g. an unmet readiness gate). */
export interface PreconditionFailureDetail {
  '@type': 'type.googleapis.com/google.rpc.PreconditionFailure';
  violations: { type: string; subject: string; description: string }[];
}

export type StatusDetail =
  ErrorInfoDetail | BadRequestDetail | RequestInfoDetail | PreconditionFailureDetail;

export interface Status {
  code: number;
  status: StatusCode;
  message: string;
  details: StatusDetail[];
}

/** The HTTP body of every error response. */
export interface ErrorResponse {
  error: Status;
}

export const ERROR_DOMAIN = 'policy-rollout';

export function isStatusCode(value: unknown): value is StatusCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(STATUS_CODES, value);
}

export function isStatus(value: unknown): value is Status {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<Status>;
  return (
    isStatusCode(candidate.status) &&
    typeof candidate.code === 'number' &&
    typeof candidate.message === 'string' &&
    Array.isArray(candidate.details)
  );
}

/** Domain code throws it; each transport maps it once. */
export class StatusError extends Error {
  readonly details: StatusDetail[];

  constructor(
    readonly status: StatusCode,
    message: string,
    details: StatusDetail[] = [],
  ) {
    super(message);
    this.name = 'StatusError';
    this.details = details;
  }

  get httpCode(): number {
    return STATUS_CODES[this.status].http;
  }

  toStatus(): Status {
    return {
      code: this.httpCode,
      status: this.status,
      message: this.message,
      details: this.details,
    };
  }

  static fromStatus(status: Status): StatusError {
    return new StatusError(status.status, status.message, status.details);
  }

  /** INVALID_ARGUMENT naming the offending fields, so a client can point at them. */
  static invalidArgument(
    message: string,
    fieldViolations: { field: string; description: string }[] = [],
  ): StatusError {
    const details: StatusDetail[] = fieldViolations.length
      ? [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations }]
      : [];
    return new StatusError('INVALID_ARGUMENT', message, details);
  }

  static withReason(
    status: StatusCode,
    message: string,
    reason: string,
    metadata?: Record<string, string>,
  ): StatusError {
    return new StatusError(status, message, [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason,
        domain: ERROR_DOMAIN,
        metadata,
      },
    ]);
  }
}
