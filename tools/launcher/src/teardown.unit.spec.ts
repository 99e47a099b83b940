import { TeardownRefused, instanceToRemove } from './teardown';

describe('which instance npm run teardown removes', () => {
  const url = 'postgres://postgres@127.0.0.1:5432/policy_rollout';
  const running = {
    apiUrl: 'http://127.0.0.1:3000',
    natsUrl: 'nats://127.0.0.1:4222',
    namespace: '',
    database: 'policy_rollout',
    pid: 4242,
  };

  it('takes the instance named in full, the one without a namespace included', () => {
    expect(instanceToRemove({ namespace: 'second', database: 'second_db' }, url, running)).toEqual({
      namespace: 'second',
      database: 'second_db',
    });
    expect(instanceToRemove({ namespace: '', database: 'other' }, url, running)).toEqual({
      namespace: '',
      database: 'other',
    });
  });

  it('refuses an instance half named, a bad database name, and the one npm start runs', () => {
    const refusal = (request: { namespace?: string; database?: string }) => {
      try {
        instanceToRemove(request, url, running);
      } catch (error) {
        expect(error).toBeInstanceOf(TeardownRefused);
        return (error as Error).message;
      }
      throw new Error('not refused');
    };
    expect(refusal({ namespace: 'second' })).toMatch(/^name the instance to remove: /);
    expect(refusal({ database: 'second_db' })).toMatch(/^name the instance to remove: /);
    expect(refusal({ namespace: 'x', database: 'Bad-Name' })).toMatch(
      /^--database must name a database .*nothing was removed$/,
    );
    expect(refusal({ namespace: '', database: 'policy_rollout' })).toBe(
      'that instance is running (npm start, pid 4242): stop it first; nothing was removed',
    );
  });
});
