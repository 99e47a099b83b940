import { randomUUID } from 'node:crypto';
import { STATUS_CODES, Status, StatusCode, StatusError, isStatus } from '@rollout/contracts';
import { isDependencyUnavailable } from './dependency-unavailable';

const CODE_BY_HTTP: Record<number, StatusCode> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'UNIMPLEMENTED',
  408: 'DEADLINE_EXCEEDED',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  501: 'UNIMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export interface MappedError {
  status: Status;
  /** Set when logged with its stack; the client gets the id alone. */
  errorId?: string;
}

function httpLike(error: unknown): { status: number; message: string } | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const candidate = error as { getStatus?: () => number; status?: unknown; statusCode?: unknown };
  const status =
    typeof candidate.getStatus === 'function'
      ? candidate.getStatus()
      : typeof candidate.status === 'number'
        ? candidate.status
        : typeof candidate.statusCode === 'number'
          ? candidate.statusCode
          : undefined;
  if (status === undefined || status < 400 || status >= 500) return undefined;
  return { status, message: (error as Error).message || 'Bad request.' };
}

/** Unexpected errors and dependencies down get a fresh error id and no internals in the message. */
export function toStatus(error: unknown): MappedError {
  if (error instanceof StatusError) return { status: error.toStatus() };
  if (isStatus(error)) return { status: error };
  const http = httpLike(error);
  if (http) {
    const code = CODE_BY_HTTP[http.status] ?? 'INVALID_ARGUMENT';
    return { status: { code: http.status, status: code, message: http.message, details: [] } };
  }
  const errorId = randomUUID();
  if (isDependencyUnavailable(error)) {
    return {
      errorId,
      status: {
        code: STATUS_CODES.UNAVAILABLE.http,
        status: 'UNAVAILABLE',
        message: `A dependency of the service is unavailable; retry shortly. Quote error id ${errorId} if it lasts.`,
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'DEPENDENCY_UNAVAILABLE',
            domain: 'policy-rollout',
            metadata: { errorId },
          },
        ],
      },
    };
  }
  return {
    errorId,
    status: {
      code: STATUS_CODES.INTERNAL.http,
      status: 'INTERNAL',
      message: `Internal error. Quote error id ${errorId} when reporting it.`,
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'INTERNAL_ERROR',
          domain: 'policy-rollout',
          metadata: { errorId },
        },
      ],
    },
  };
}
