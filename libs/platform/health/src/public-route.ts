import { SetMetadata } from '@nestjs/common';

/** Metadata key of `@Public()`; an HTTP edge's auth guard reads it. */
export const IS_PUBLIC_ROUTE = 'auth:public-route';

/**
 * A route (or controller) that needs no bearer token: probes and metrics, whose callers (the
 * kubelet, Prometheus) carry none, and endpoints that authenticate their caller themselves.
 * It lives here, the lowest HTTP lib, so platform controllers can use it without a cycle.
 */
export const Public = () => SetMetadata(IS_PUBLIC_ROUTE, true);
