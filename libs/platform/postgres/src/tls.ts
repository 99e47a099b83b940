import { readFileSync } from 'node:fs';
/** What pg passes to tls.connect: whether to verify the server, and the CA to verify it with. */
export interface PgSslOptions {
  rejectUnauthorized: boolean;
  ca?: string;
  /** verify-ca: the chain is checked, the name is not. */
  checkServerIdentity?: () => undefined;
}

/**
 * How a service's connections to Postgres are protected, as libpq's sslmode names it:
 * `disable` (plain TCP, the default on a developer's machine), `require` (encrypted, the server
 * not verified), `verify-ca` (encrypted, the server's certificate chained to `rootCert`, or to
 * the system's CAs without one) or `verify-full` (that, and its name matching the host of the
 * URL). Production accepts only the last two (`checkDatabaseTls` in libs/platform/config).
 */
export const POSTGRES_SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;
export type PostgresSslMode = (typeof POSTGRES_SSL_MODES)[number];

export interface PostgresTls {
  mode: PostgresSslMode;
  /** PEM file of the CA that signed the server's certificate (verify-ca and verify-full only). */
  rootCert?: string;
}

/** The `ssl` option of pg for these settings; reads the root certificate, failing with its path. */
export function pgSslOptions(tls: PostgresTls | undefined): false | PgSslOptions {
  if (tls?.rootCert && tls.mode !== 'verify-full' && tls.mode !== 'verify-ca')
    throw new Error(
      `a Postgres root certificate is checked only with verify-full or verify-ca (the mode is ${tls.mode})`,
    );
  if (!tls || tls.mode === 'disable') return false;
  if (tls.mode === 'require') return { rejectUnauthorized: false };
  const name = tls.mode === 'verify-ca' ? { checkServerIdentity: () => undefined } : {};
  if (!tls.rootCert) return { rejectUnauthorized: true, ...name };
  let ca: string;
  try {
    ca = readFileSync(tls.rootCert, 'utf8');
  } catch (error) {
    const reason = (error as { message?: string }).message ?? String(error);
    throw new Error(`cannot read the Postgres root certificate ${tls.rootCert}: ${reason}`);
  }
  // verify-full: pg checks the certificate's name against the URL's host (Node's checkServerIdentity).
  return { rejectUnauthorized: true, ca, ...name };
}
