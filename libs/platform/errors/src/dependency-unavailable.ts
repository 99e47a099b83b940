/**
 * Whether an error says a dependency is down or restarting (Postgres refusing or dropping
 * connections, a socket reset), not that the request or the code is wrong. Such a request may
 * well succeed when retried, so it is answered UNAVAILABLE, not INTERNAL.
 */
export function isDependencyUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; isObject(current) && depth < 4; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (UNAVAILABLE_SQLSTATE.test(code) || SOCKET_ERRORS.has(code)))
      return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
    // TypeORM keeps the driver's error; Node's fetch and others chain theirs as `cause`.
    current =
      (current as { driverError?: unknown; cause?: unknown }).driverError ??
      (current as { cause?: unknown }).cause;
  }
  return false;
}

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null;

/**
 * SQLSTATE class 08 (connection exception), 57P01-57P03 (the server shutting down, crashed,
 * or not accepting connections yet) and 53300 (too many connections).
 */
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
/** node-postgres and pg-pool say these without a code; a database closed to connections is 55000, shared with other causes. */
const UNAVAILABLE_MESSAGES =
  /^(Connection terminated( unexpectedly| due to connection timeout)?|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable)$|is not currently accepting connections/;
