import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';

const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a sane caller's id so traces join up. */
export function requestIdFrom(incoming: unknown): string {
  const candidate = Array.isArray(incoming) ? incoming[0] : incoming;
  return typeof candidate === 'string' && ACCEPTABLE_ID.test(candidate) ? candidate : randomUUID();
}

export const httpRequestId = (request: IncomingMessage): string =>
  requestIdFrom(request.headers[REQUEST_ID_HEADER]);
