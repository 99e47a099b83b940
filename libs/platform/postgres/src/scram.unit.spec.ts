import { passwordProblem, scramVerifier, scramVerifierMatches } from './scram';

// What PostgreSQL 15 stored for `CREATE ROLE … PASSWORD 'pencil'` (password_encryption scram-sha-256).
const FROM_POSTGRES =
  'SCRAM-SHA-256$4096:vKlP199XyzbA66io2lI/Ug==$iyIY/hGboZKkXRNzZvuS4cHV4O4z+cJ6cLZrzPpO8Eo=:wMxY9ejNh+8mmeJGT3rMzKtJETADwudcqzXq3DrDrnU=';

describe('SCRAM-SHA-256 verifiers', () => {
  it('computes the verifier Postgres computes for the same password and salt', () => {
    expect(scramVerifier('pencil', Buffer.from('vKlP199XyzbA66io2lI/Ug==', 'base64'))).toBe(
      FROM_POSTGRES,
    );
  });

  it('salts each verifier anew, and each matches its password only', () => {
    const [a, b] = [scramVerifier('pencil'), scramVerifier('pencil')];
    expect(a).not.toBe(b);
    expect(a).not.toContain('pencil');
    expect(scramVerifierMatches(a, 'pencil')).toBe(true);
    expect(scramVerifierMatches(FROM_POSTGRES, 'pencil')).toBe(true);
    expect(scramVerifierMatches(FROM_POSTGRES, 'pencil2')).toBe(false);
  });

  it('matches nothing that is not a SCRAM verifier', () => {
    for (const stored of [null, undefined, '', 'md5d1b5f2b1a3c4e5f60718293a4b5c6d7e', 'pencil'])
      expect(scramVerifierMatches(stored, 'pencil')).toBe(false);
  });

  it('refuses a password outside printable ASCII, which Postgres would normalise first, without echoing it', () => {
    expect(passwordProblem('pässwort')).toMatch(/printable ASCII/);
    expect(passwordProblem('tab\there')).toMatch(/printable ASCII/);
    expect(passwordProblem('')).toMatch(/printable ASCII/);
    expect(() => scramVerifier('pässwort')).toThrow(/printable ASCII/);
    expect(() => scramVerifier('pässwort')).not.toThrow(/pässwort/);
  });
});
