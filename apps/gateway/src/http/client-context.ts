import {
  CONTRACT_HEADERS,
  clientNameOf,
  parseClientFeatures,
  type ActorClaims,
} from '@rollout/contracts';
import type { ClientMetrics } from '@rollout/platform/metrics';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';

export interface HttpClientContext {
  /** The User-Agent product name, or `unknown`. */
  client: string;
  features: string[];
  /** For headers set on the way (e.g. `Deprecation`). */
  response: ServerResponse;
  /** Set by the auth guards: the actor the backend client asserts to services. */
  actor?: Pick<ActorClaims, 'actor' | 'roles' | 'projects'>;
}

const storage = new AsyncLocalStorage<HttpClientContext>();

export function currentHttpClient(): HttpClientContext | undefined {
  return storage.getStore();
}

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
};

/** Called once the body is read, so nothing that follows runs in the socket's context instead. */
export function runInClientContext(
  metrics: ClientMetrics,
  headers: IncomingHttpHeaders,
  response: ServerResponse,
  next: () => void,
): void {
  const context: HttpClientContext = {
    client: clientNameOf(header(headers, CONTRACT_HEADERS.userAgent)),
    features: parseClientFeatures(header(headers, CONTRACT_HEADERS.clientFeatures)),
    response,
  };
  metrics.recordRequest('http', context.client, 'none', context.features);
  storage.run(context, next);
}
