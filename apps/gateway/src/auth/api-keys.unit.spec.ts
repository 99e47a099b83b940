import { ApiKeyVerifier, apiKeysSchema, sha256 } from './api-keys';

const key = (token: string, name: string) => ({
  name,
  sha256: sha256(token).toString('hex'),
  roles: ['editor' as const],
  projects: ['alpha'],
});

describe('ApiKeyVerifier', () => {
  const verifier = new ApiKeyVerifier([key('tok-one', 'ci'), key('tok-two', 'ops')]);

  it('finds the principal of a configured token', () => {
    expect(verifier.verify('tok-two')).toEqual({
      name: 'ops',
      roles: ['editor'],
      projects: ['alpha'],
    });
  });

  it('knows nothing of other tokens, prefixes or the stored hash itself', () => {
    expect(verifier.verify('tok-thre')).toBeUndefined();
    expect(verifier.verify('tok-')).toBeUndefined();
    expect(verifier.verify(sha256('tok-one').toString('hex'))).toBeUndefined();
  });

  it('rejects a configuration that stores anything but a SHA-256', () => {
    const result = apiKeysSchema.safeParse([
      { name: 'x', sha256: 'plaintext-token', roles: ['admin'], projects: '*' },
    ]);
    expect(result.success).toBe(false);
  });
});
