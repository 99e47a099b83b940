import type { BusNeeds } from '@rollout/contracts';
import type { ActorClaims } from '@rollout/contracts';

/** Signs who a call is made for into its `Actor-Assertion` header (bus security's signer). */
export interface ActorSigner {
  sign(subject: string, payload: Uint8Array, claims: ActorClaims): string;
}

/** How a service connects to NATS (NatsModule.forRoot), apart from the module so its users need not import it. */
export interface NatsModuleOptions {
  /** Client name shown by the server (the service name); also the `User-Agent` name of RPC calls. */
  name: string;
  /** Build version, the `User-Agent` version of RPC calls (`<name>/0.1.0`). */
  version?: string;
  servers: string[];
  user?: string;
  password?: string;
  token?: string;
  namespace?: string;
  /** Streams, durable consumers and KV buckets this service uses: it is not ready unless they exist as declared (provisioning creates them). */
  jetstream?: BusNeeds;
  /** How often it compares the bus with the declared topology (default TOPOLOGY_CHECK_INTERVAL_MS, 10 s). */
  topologyCheckIntervalMs?: number;
  /** Fail at boot when the first connection takes longer than this. */
  connectTimeoutMs?: number;
  /** Signs actor assertions into the RPC calls that name an actor (the HTTP edge's, a system key's). */
  actorSigner?: ActorSigner;
}

/** The inbox prefix of a NATS user, `_INBOX_<user>`: the one its permissions let it subscribe under (see tools/provision/src/bus-permissions.ts). */
export function inboxPrefixOf(user: string): string {
  return `_INBOX_${user}`;
}
