import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC_ROUTE = 'auth:public-route';

/** Probes and metrics: their callers carry no token. Here, the lowest HTTP lib, to avoid a cycle. */
export const Public = () => SetMetadata(IS_PUBLIC_ROUTE, true);
