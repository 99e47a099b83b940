export type { EncodedBusKey, SignedActorClaims, VerifierOptions } from './actor-assertion';
export {
  ActorAssertionSigner,
  ActorAssertionVerifier,
  generateBusKeyPair,
  parseBusKey,
  systemSignerOf,
} from './actor-assertion';
export type { ActorAssertionGateOptions } from './actor-gate';
export { ActorAssertionGate, projectsNamedIn } from './actor-gate';
export type { AssertionIds } from './assertion-ids';
export { ProcessAssertionIds, SharedAssertionIds, isStateChanging } from './assertion-ids';
