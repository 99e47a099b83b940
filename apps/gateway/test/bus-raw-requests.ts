import { ActorAssertionSigner, parseBusKey } from '@rollout/platform/bus-security';
import { ACTOR_ASSERTION_HEADER, ActorClaims } from '@rollout/contracts';
import { NatsConnection, headers as natsHeaders } from 'nats';
import { randomUUID } from 'node:crypto';
import { KEYS, codec } from './bus-security-system';

// Requests sent straight onto the bus, past the gateway, with actor assertions made by the test.

/** A request sent straight onto NATS in the services' packet format, its actor assertion made by `assert` (or none). */
export async function rawRequest(
  nc: NatsConnection,
  subject: string,
  data: unknown,
  assert?: (subject: string, payload: Uint8Array) => string,
): Promise<{ err?: { status: string; details?: unknown[] }; response?: unknown }> {
  const payload = codec.encode({ pattern: subject, data, id: randomUUID() });
  const headers = natsHeaders();
  if (assert) headers.set(ACTOR_ASSERTION_HEADER, assert(subject, payload));
  return codec.decode(
    (await nc.request(subject, payload, { timeout: 10_000, headers })).data,
  ) as never;
}

export const signer = (signingKey = KEYS.signingKey, now: () => number = Date.now) =>
  new ActorAssertionSigner(parseBusKey(signingKey)!, 10_000, now);
export const signedAs =
  (claims: ActorClaims, key?: ActorAssertionSigner) => (subject: string, payload: Uint8Array) =>
    (key ?? signer()).sign(subject, payload, claims);
