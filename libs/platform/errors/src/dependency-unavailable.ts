/** Such a request may succeed when retried, so it is answered UNAVAILABLE, not INTERNAL. */
export function isDependencyUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; isObject(current) && depth < 4; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (UNAVAILABLE_SQLSTATE.test(code) || SOCKET_ERRORS.has(code)))
      return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
    // Node's fetch and others chain theirs as `cause`.
    current =
      (current as { driverError?: unknown; cause?: unknown }).driverError ??
      (current as { cause?: unknown }).cause;
  }
  return false;
}

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null;

/** Connection exceptions, server shutting down or starting, too many connections. */
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;
const SOCKET_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/** Said without a code; 55000 (database closed to connections) is shared with other causes. */
const UNAVAILABLE_MESSAGES =
  /^(Connection terminated( unexpectedly| due to connection timeout)?|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable)$|is not currently accepting connections/;
