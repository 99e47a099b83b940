import type { Principal } from '../auth/principal';
import type { Caller } from './experiments.client';

/** Who asks, and under which command and trace id, as the experiment-service records it. */
export const caller = (
  principal: Principal,
  commandId: string | undefined,
  traceId: string | undefined,
): Caller => ({
  actor: principal.name,
  commandId,
  traceId,
});
