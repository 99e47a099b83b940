import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { JwtVerifier } from './jwt';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const nowSeconds = NOW / 1000;
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const claims = (extra: Record<string, unknown> = {}) => ({
  iss: 'https://idp.example',
  aud: 'policy-rollout',
  sub: 'alice',
  exp: nowSeconds + 300,
  roles: ['viewer'],
  projects: ['alpha'],
  ...extra,
});

function hs256(payload: unknown, secret = 's3cret-s3cret-s3cret', alg = 'HS256') {
  const unsigned = `${b64({ alg, typ: 'JWT' })}.${b64(payload)}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

describe('JwtVerifier with a shared secret (HS256)', () => {
  const verifier = new JwtVerifier(
    { issuer: 'https://idp.example', audience: 'policy-rollout', key: 's3cret-s3cret-s3cret' },
    () => NOW,
  );

  it('accepts a valid token and maps its claims', () => {
    expect(verifier.verify(hs256(claims()))).toEqual({
      name: 'jwt:alice',
      roles: ['viewer'],
      projects: ['alpha'],
    });
  });

  it.each([
    ['a wrong signature', hs256(claims(), 'another-secret')],
    ['another issuer', hs256(claims({ iss: 'https://evil.example' }))],
    ['another audience', hs256(claims({ aud: 'other-app' }))],
    ['an expired token', hs256(claims({ exp: nowSeconds - 120 }))],
    ['a token not valid yet', hs256(claims({ nbf: nowSeconds + 120 }))],
    ['no expiry', hs256(claims({ exp: undefined }))],
    ['no known role', hs256(claims({ roles: ['root'] }))],
    ['alg none', `${b64({ alg: 'none' })}.${b64(claims())}.`],
    ['garbage', 'not.a.jwt'],
  ])('rejects %s', (_, token) => {
    expect(verifier.verify(token)).toBeUndefined();
  });
});

describe('JwtVerifier with a public key (RS256)', () => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const verifier = new JwtVerifier(
    {
      issuer: 'https://idp.example',
      audience: 'policy-rollout',
      key: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    },
    () => NOW,
  );
  const rs256 = (payload: unknown, alg = 'RS256') => {
    const unsigned = `${b64({ alg })}.${b64(payload)}`;
    return `${unsigned}.${sign('sha256', Buffer.from(unsigned), privateKey).toString('base64url')}`;
  };

  it('accepts a token signed by the private key', () => {
    expect(verifier.verify(rs256(claims({ projects: '*' })))?.projects).toBe('*');
  });

  it('rejects an HS256 token forged with the public key as the secret (algorithm confusion)', () => {
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(verifier.verify(hs256(claims(), pem))).toBeUndefined();
  });
});
