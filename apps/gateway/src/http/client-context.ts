import { CONTRACT_HEADERS, clientNameOf, parseClientFeatures } from '@rollout/contracts';
import type { ClientMetrics } from '@rollout/metrics';
import type { NextFunction, Request, Response } from 'express';
import { AsyncLocalStorage } from 'node:async_hooks';

/** Who is calling, from an HTTP request's `User-Agent` and `Client-Features`. */
export interface HttpClientContext {
  /** The User-Agent product name, or `unknown`. */
  client: string;
  /** Reverse-DNS features the client declared. */
  features: string[];
  /** The response, for headers set on the way (e.g. `Deprecation`). */
  response: Response;
}

const storage = new AsyncLocalStorage<HttpClientContext>();

/** The HTTP client of the request being handled (undefined outside one). */
export function currentHttpClient(): HttpClientContext | undefined {
  return storage.getStore();
}

/**
 * Records each HTTP request's client (metrics by client name and declared features) and keeps
 * it for the rest of the request: the backend client forwards the features over NATS and
 * reports deprecated fields to it. Installed after the body parser, so the whole route runs
 * inside it.
 */
export function clientContextMiddleware(metrics: ClientMetrics) {
  return (req: Request, res: Response, next: NextFunction) => {
    const context: HttpClientContext = {
      client: clientNameOf(req.get(CONTRACT_HEADERS.userAgent)),
      features: parseClientFeatures(req.get(CONTRACT_HEADERS.clientFeatures)),
      response: res,
    };
    metrics.recordRequest('http', context.client, 'none', context.features);
    storage.run(context, next);
  };
}
