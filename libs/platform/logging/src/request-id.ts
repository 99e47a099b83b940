import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The header that carries a request id over HTTP and over NATS. */
export const REQUEST_ID_HEADER = 'x-request-id';

const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a caller's id when it is sane (so traces join up), otherwise makes a new one. */
export function requestIdFrom(incoming: unknown): string {
  const candidate = Array.isArray(incoming) ? incoming[0] : incoming;
  return typeof candidate === 'string' && ACCEPTABLE_ID.test(candidate) ? candidate : randomUUID();
}

/** An HTTP request's id (the HTTP server's `genReqId`): the caller's `x-request-id` or a new one. */
export const httpRequestId = (request: IncomingMessage): string =>
  requestIdFrom(request.headers[REQUEST_ID_HEADER]);
