import { readFileSync } from 'node:fs';
export interface PgSslOptions {
  rejectUnauthorized: boolean;
  ca?: string;
  checkServerIdentity?: () => undefined;
}

/** libpq's sslmode; production accepts only the verifying two (`checkDatabaseTls`). */
export const POSTGRES_SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;
export type PostgresSslMode = (typeof POSTGRES_SSL_MODES)[number];

export interface PostgresTls {
  mode: PostgresSslMode;
  rootCert?: string;
}

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
  return { rejectUnauthorized: true, ca, ...name };
}
