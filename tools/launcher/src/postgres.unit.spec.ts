import { isConnectionRefused } from './postgres';

describe('telling "nothing listens there" from "a server said no"', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
    code: 'ECONNREFUSED',
  });

  it('takes a refused connection as a missing server, to be started', () => {
    expect(isConnectionRefused(refused)).toBe(true);
    // A host name with several addresses: Node reports all the attempts at once.
    const ipv6 = Object.assign(new Error('connect ECONNREFUSED ::1:5432'), {
      code: 'ECONNREFUSED',
    });
    expect(isConnectionRefused(new AggregateError([ipv6, refused]))).toBe(true);
  });

  it('never takes a server that answered (or a slow network) for a missing one', () => {
    const noRole = Object.assign(new Error('role "nobody" does not exist'), { code: '28000' });
    const timeout = new Error('Connection terminated due to connection timeout');
    expect(isConnectionRefused(noRole)).toBe(false);
    expect(isConnectionRefused(timeout)).toBe(false);
    expect(isConnectionRefused(new AggregateError([refused, timeout]))).toBe(false);
    expect(isConnectionRefused(new AggregateError([]))).toBe(false);
  });
});
