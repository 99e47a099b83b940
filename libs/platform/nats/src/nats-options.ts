import type { BusNeeds } from '@rollout/contracts';
import type { ActorClaims } from '@rollout/contracts';

export interface ActorSigner {
  sign(subject: string, payload: Uint8Array, claims: ActorClaims): string;
}

/** Apart from the module so its users need not import it. */
export interface NatsModuleOptions {
  /** Also the `User-Agent` name of RPC calls. */
  name: string;
  version?: string;
  servers: string[];
  user?: string;
  password?: string;
  token?: string;
  namespace?: string;
  /** Not ready unless they exist as declared (provisioning creates them). */
  jetstream?: BusNeeds;
  topologyCheckIntervalMs?: number;
  connectTimeoutMs?: number;
  actorSigner?: ActorSigner;
}

/** The one prefix its permissions let it subscribe under (tools/provision/src/bus-permissions.ts). */
export function inboxPrefixOf(user: string): string {
  return `_INBOX_${user}`;
}
