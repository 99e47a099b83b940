import { StatusError } from '@rollout/contracts';
import { PageTokens } from './page-tokens';

describe('PageTokens', () => {
  const tokens = new PageTokens('a secret of the gateway');

  it('gives the service back exactly the token it issued', () => {
    const reply = tokens.sealReply({ items: [1], nextPageToken: 'eyJvZmZzZXQiOjUwfQ' });
    expect(reply.nextPageToken).not.toBe('eyJvZmZzZXQiOjUwfQ');
    expect(tokens.openRequest({ project: 'acme', pageToken: reply.nextPageToken })).toEqual({
      project: 'acme',
      pageToken: 'eyJvZmZzZXQiOjUwfQ',
    });
  });

  it('refuses a forged, altered or foreign token with INVALID_ARGUMENT naming pageToken', () => {
    const sealed = tokens.seal('eyJvZmZzZXQiOjUwfQ');
    const altered = sealed.replace('eyJvZmZzZXQiOjUwfQ', 'eyJvZmZzZXQiOjk5fQ');
    const foreign = new PageTokens('another secret').seal('eyJvZmZzZXQiOjUwfQ');
    for (const token of [
      'eyJvZmZzZXQiOjUwfQ',
      altered,
      foreign,
      `${sealed}x`,
      '.',
      'x.',
      "' OR 1=1 --",
    ]) {
      let error: unknown;
      try {
        tokens.open(token);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(StatusError);
      expect((error as StatusError).status).toBe('INVALID_ARGUMENT');
      expect(JSON.stringify((error as StatusError).details)).toContain('pageToken');
    }
  });

  it('leaves requests without a token and replies on the last page alone', () => {
    expect(tokens.openRequest({ pageSize: 5 })).toEqual({ pageSize: 5 });
    expect(tokens.openRequest({ pageToken: '' })).toEqual({ pageToken: '' });
    expect(tokens.sealReply({ items: [], nextPageToken: '' })).toEqual({
      items: [],
      nextPageToken: '',
    });
  });
});
