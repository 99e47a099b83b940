import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

/** As Postgres computes it itself (src/common/scram-common). */
const ITERATIONS = 4096;
const SALT_BYTES = 16;
const VERIFIER =
  /^SCRAM-SHA-256\$(\d+):([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2}):([A-Za-z0-9+/]+={0,2})$/;
/** What SASLprep leaves as it is, so the verifier is the one Postgres would compute. */
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

/** The message never contains the password. */
export function passwordProblem(password: string): string | undefined {
  return PRINTABLE_ASCII.test(password)
    ? undefined
    : 'must be printable ASCII (letters, digits, punctuation and spaces)';
}

function keys(password: string, salt: Buffer, iterations: number) {
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  return {
    storedKey: createHash('sha256').update(clientKey).digest(),
    serverKey: createHmac('sha256', salted).update('Server Key').digest(),
  };
}

/**
 * As stored in `pg_authid.rolpassword` (RFC 5802, 7677): given to `ALTER ROLE … PASSWORD`, so
 * the password never reaches the server nor its statement log.
 */
export function scramVerifier(password: string, salt: Buffer = randomBytes(SALT_BYTES)): string {
  const problem = passwordProblem(password);
  if (problem) throw new Error(`a provisioned password ${problem}`);
  const { storedKey, serverKey } = keys(password, salt, ITERATIONS);
  return `SCRAM-SHA-256$${ITERATIONS}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

export function scramVerifierMatches(
  verifier: string | null | undefined,
  password: string,
): boolean {
  const match = verifier ? VERIFIER.exec(verifier) : null;
  if (!match || passwordProblem(password)) return false;
  const iterations = Number(match[1]);
  if (!Number.isSafeInteger(iterations) || iterations < 1 || iterations > 10_000_000) return false;
  const { storedKey, serverKey } = keys(password, Buffer.from(match[2], 'base64'), iterations);
  const stored = Buffer.from(match[3], 'base64');
  const server = Buffer.from(match[4], 'base64');
  return (
    stored.length === storedKey.length &&
    server.length === serverKey.length &&
    timingSafeEqual(stored, storedKey) &&
    timingSafeEqual(server, serverKey)
  );
}
