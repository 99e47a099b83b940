import type { Principal } from '../auth/principal';
import type { Caller } from './experiments.client';

export const caller = (
  principal: Principal,
  commandId: string | undefined,
  traceId: string | undefined,
): Caller => ({
  actor: principal.name,
  commandId,
  traceId,
});
