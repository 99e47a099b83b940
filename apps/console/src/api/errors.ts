import type { BadRequestDetail, ErrorResponse, Status, StatusCode } from '@rollout/contracts';

export interface FieldViolation {
  field: string;
  description: string;
}

/** One sentence, never the raw body. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly httpStatus: number,
    readonly code: StatusCode | 'NETWORK' | 'UNREADABLE',
    readonly fieldViolations: FieldViolation[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** What an operator can do about each canonical code, after the API's own message. */
const ADVICE: Partial<Record<StatusCode, string>> = {
  UNAUTHENTICATED: 'Sign in again with a valid token.',
  PERMISSION_DENIED: 'Ask for a token with that role.',
  NOT_FOUND:
    'It may have been deleted or committed meanwhile, or your token may not see this project.',
  ABORTED: 'Someone changed it meanwhile: reload and try again.',
  ALREADY_EXISTS: 'Pick another id.',
  RESOURCE_EXHAUSTED: 'Wait a moment, or remove something first.',
  UNAVAILABLE: 'A service is not running or is restarting: try again shortly.',
  DEADLINE_EXCEEDED: 'A service did not answer in time: try again shortly.',
  INTERNAL: 'Report it with the error id.',
};

const sentence = (text: string) => {
  const trimmed = text.trim();
  if (!trimmed) return '';
  const capitalised = trimmed[0].toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capitalised) ? capitalised : `${capitalised}.`;
};

function isErrorResponse(body: unknown): body is ErrorResponse {
  const error = (body as ErrorResponse | null)?.error as Partial<Status> | undefined;
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof error.message === 'string' &&
    typeof error.status === 'string'
  );
}

export function errorFromResponse(httpStatus: number, body: unknown): ApiError {
  if (!isErrorResponse(body)) {
    return new ApiError(
      `The gateway answered ${httpStatus} without an explanation.`,
      httpStatus,
      'UNREADABLE',
    );
  }
  const { status, message, details = [] } = body.error;
  const violations = details
    .filter(
      (detail): detail is BadRequestDetail =>
        detail['@type'] === 'type.googleapis.com/google.rpc.BadRequest',
    )
    .flatMap((detail) => detail.fieldViolations);
  const errorId = details.flatMap((detail) =>
    'metadata' in detail && detail.metadata?.errorId ? [detail.metadata.errorId] : [],
  )[0];
  const parts = [
    sentence(message),
    ADVICE[status] ?? '',
    errorId && !message.includes(errorId) ? `Error id ${errorId}.` : '',
  ];
  return new ApiError(parts.filter(Boolean).join(' '), httpStatus, status, violations);
}

export function networkError(): ApiError {
  return new ApiError(
    'The gateway could not be reached: check that it is running and try again.',
    0,
    'NETWORK',
  );
}

export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return 'Something went wrong in the console; reload the page and try again.';
}
