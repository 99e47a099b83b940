import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pgSslOptions } from './tls';

describe('the TLS a service asks of Postgres', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pg-tls-'));
  const ca = join(dir, 'ca.crt');
  writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('speaks plain TCP when disabled or unset, as on a developer machine', () => {
    expect(pgSslOptions(undefined)).toBe(false);
    expect(pgSslOptions({ mode: 'disable' })).toBe(false);
  });

  it('encrypts without verifying the server under require', () => {
    expect(pgSslOptions({ mode: 'require' })).toEqual({ rejectUnauthorized: false });
  });

  it('verifies the server against the root certificate it reads under verify-full', () => {
    expect(pgSslOptions({ mode: 'verify-full', rootCert: ca })).toEqual({
      rejectUnauthorized: true,
      ca: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
    });
    // Without one, against the system's CAs: still verified.
    expect(pgSslOptions({ mode: 'verify-full' })).toEqual({ rejectUnauthorized: true });
  });

  it('verifies the chain but not the name under verify-ca', () => {
    const options = pgSslOptions({ mode: 'verify-ca', rootCert: ca });
    expect(options).toEqual({
      rejectUnauthorized: true,
      ca: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
      checkServerIdentity: expect.any(Function),
    });
    expect(options && options.checkServerIdentity?.()).toBeUndefined();
  });

  it('fails at boot, naming the file, when the root certificate cannot be read', () => {
    expect(() => pgSslOptions({ mode: 'verify-full', rootCert: join(dir, 'missing.crt') })).toThrow(
      `cannot read the Postgres root certificate ${join(dir, 'missing.crt')}: ENOENT`,
    );
  });

  it('refuses a root certificate that would not be checked', () => {
    expect(() => pgSslOptions({ mode: 'require', rootCert: ca })).toThrow(
      'a Postgres root certificate is checked only with verify-full or verify-ca (the mode is require)',
    );
  });
});
