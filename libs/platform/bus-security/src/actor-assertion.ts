import { ActorClaims, SYSTEM_SIGNERS, StatusError, SystemSigner } from '@rollout/contracts';
import {
  KeyObject,
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomUUID,
  sign,
  verify,
} from 'node:crypto';
import { NatsNamespace } from '@rollout/platform/nats';

export interface SignedActorClaims extends ActorClaims {
  /** Key id, so keys can be rotated. */
  kid: string;
  /** ms since the epoch. */
  iat: number;
  exp: number;
  /** A second arrival of the same jti is a replay. */
  jti: string;
  /** Namespace included: an assertion is good for one subject. */
  sub: string;
  /** SHA-256 (base64url) of the payload: an assertion is good for one payload. */
  dig: string;
}

// These DER prefixes make 32 raw Ed25519 bytes PKCS#8 / SPKI for node:crypto.
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const KEY_ID = /^[A-Za-z0-9_.-]{1,64}$/;
/** One KV key token, so it can be remembered where every replica sees it. */
const ASSERTION_ID = /^[A-Za-z0-9_-]{1,128}$/;

const RAW_KEY = /^[A-Za-z0-9_-]{43}$/;

export interface EncodedBusKey {
  keyId: string;
  key: string;
}

export function parseBusKey(text: string): EncodedBusKey | undefined {
  const colon = text.indexOf(':');
  const keyId = text.slice(0, colon);
  const key = text.slice(colon + 1);
  return colon > 0 && KEY_ID.test(keyId) && RAW_KEY.test(key) ? { keyId, key } : undefined;
}

/** `docs/bus-security.md` shows the same with openssl. */
export function generateBusKeyPair(keyId: string): { signingKey: string; verifyKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const seed = privateKey
    .export({ format: 'der', type: 'pkcs8' })
    .subarray(PKCS8_ED25519_PREFIX.length);
  const raw = publicKey
    .export({ format: 'der', type: 'spki' })
    .subarray(SPKI_ED25519_PREFIX.length);
  return {
    signingKey: `${keyId}:${seed.toString('base64url')}`,
    verifyKey: `${keyId}:${raw.toString('base64url')}`,
  };
}

const digest = (payload: Uint8Array) => createHash('sha256').update(payload).digest('base64url');

export class ActorAssertionSigner {
  private readonly keyId: string;
  private readonly privateKey: KeyObject;

  constructor(
    signingKey: EncodedBusKey,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.keyId = signingKey.keyId;
    this.privateKey = createPrivateKey({
      key: Buffer.concat([PKCS8_ED25519_PREFIX, Buffer.from(signingKey.key, 'base64url')]),
      format: 'der',
      type: 'pkcs8',
    });
  }

  sign(subject: string, payload: Uint8Array, claims: ActorClaims): string {
    const iat = this.now();
    const signed: SignedActorClaims = {
      ...claims,
      kid: this.keyId,
      iat,
      exp: iat + this.ttlMs,
      jti: randomUUID(),
      sub: subject,
      dig: digest(payload),
    };
    const body = Buffer.from(JSON.stringify(signed)).toString('base64url');
    return `${body}.${sign(null, Buffer.from(body), this.privateKey).toString('base64url')}`;
  }
}

/** undefined for the edge's key; a `system.` id of no known service names nothing it may do. */
export function systemSignerOf(keyId: string): SystemSigner | 'unknown' | undefined {
  if (!keyId.startsWith('system.')) return undefined;
  const service = keyId.split('.')[1];
  return Object.hasOwn(SYSTEM_SIGNERS, service) ? SYSTEM_SIGNERS[service] : 'unknown';
}

export interface VerifierOptions {
  /** Whatever the assertion says: bounds how long replays are remembered. */
  maxTtlMs: number;
  clockSkewMs: number;
  /** So a system key's subjects match as sent. */
  namespace?: NatsNamespace;
  now?: () => number;
}

const denied = (why: string, reason: string) =>
  StatusError.withReason('PERMISSION_DENIED', `The request's actor assertion ${why}.`, reason);

/** Several keys are accepted during a rotation. Replays are the gate's check (`ActorAssertionGate`). */
export class ActorAssertionVerifier {
  private readonly keys: Map<string, KeyObject>;
  private readonly now: () => number;

  constructor(
    verifyKeys: readonly EncodedBusKey[],
    private readonly options: VerifierOptions,
  ) {
    this.keys = new Map(
      verifyKeys.map(({ keyId, key }) => [
        keyId,
        createPublicKey({
          key: Buffer.concat([SPKI_ED25519_PREFIX, Buffer.from(key, 'base64url')]),
          format: 'der',
          type: 'spki',
        }),
      ]),
    );
    this.now = options.now ?? Date.now;
  }

  verify(subject: string, payload: Uint8Array, header: string | undefined): SignedActorClaims {
    if (!header) throw denied('is missing', 'ACTOR_ASSERTION_MISSING');
    const dot = header.indexOf('.');
    const body = header.slice(0, dot);
    const claims = dot > 0 ? decodeClaims(body) : undefined;
    if (!claims) throw denied('is malformed', 'ACTOR_ASSERTION_MALFORMED');
    const key = this.keys.get(claims.kid);
    if (!key) throw denied(`names an unknown key id`, 'ACTOR_ASSERTION_UNKNOWN_KEY');
    if (!verify(null, Buffer.from(body), key, Buffer.from(header.slice(dot + 1), 'base64url')))
      throw denied('has a bad signature', 'ACTOR_ASSERTION_BAD_SIGNATURE');
    if (claims.sub !== subject || claims.dig !== digest(payload))
      throw denied('was signed for another request', 'ACTOR_ASSERTION_OTHER_REQUEST');
    this.checkScope(claims, subject);
    const now = this.now();
    const { clockSkewMs, maxTtlMs } = this.options;
    if (
      claims.exp + clockSkewMs <= now ||
      claims.iat - clockSkewMs > now ||
      claims.exp - claims.iat > maxTtlMs
    )
      throw denied('has expired or is not valid yet', 'ACTOR_ASSERTION_EXPIRED');
    return claims;
  }

  /** Until then, a second arrival is a replay. */
  acceptedUntil(claims: SignedActorClaims): number {
    return claims.exp + this.options.clockSkewMs;
  }

  /** A system key speaks only as its service's actor, on its subjects. */
  private checkScope(claims: SignedActorClaims, subject: string) {
    const signer = systemSignerOf(claims.kid);
    if (signer === undefined) return;
    const namespace = this.options.namespace ?? new NatsNamespace();
    if (
      signer === 'unknown' ||
      claims.actor !== signer.actor ||
      !signer.subjects.some((s) => namespace.subject(s) === subject)
    ) {
      throw denied(`asserts what its key (${claims.kid}) may not`, 'ACTOR_ASSERTION_KEY_SCOPE');
    }
  }
}

function decodeClaims(body: string): SignedActorClaims | undefined {
  let claims: Partial<SignedActorClaims>;
  try {
    claims = JSON.parse(
      Buffer.from(body, 'base64url').toString('utf8'),
    ) as Partial<SignedActorClaims>;
  } catch {
    return undefined;
  }
  const text = (value: unknown) =>
    typeof value === 'string' && value.length > 0 && value.length <= 1024;
  const valid =
    typeof claims === 'object' &&
    claims !== null &&
    [claims.kid, claims.actor, claims.jti, claims.sub, claims.dig].every(text) &&
    ASSERTION_ID.test(claims.jti as string) &&
    Number.isSafeInteger(claims.iat) &&
    Number.isSafeInteger(claims.exp) &&
    Array.isArray(claims.roles) &&
    claims.roles.every(text) &&
    (claims.projects === '*' || (Array.isArray(claims.projects) && claims.projects.every(text))) &&
    (claims.requestId === undefined || text(claims.requestId));
  return valid ? (claims as SignedActorClaims) : undefined;
}
