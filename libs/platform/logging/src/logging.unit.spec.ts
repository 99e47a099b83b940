import { httpLogLevel } from './logging.module';

describe('the level of a request log line', () => {
  it('logs a client error (4xx) at info, as any answer, so a warning means something is wrong', () => {
    for (const status of [200, 204, 302, 400, 401, 404, 405, 409, 413, 415, 429])
      expect({ status, level: httpLogLevel(status) }).toEqual({ status, level: 'info' });
  });

  it('logs a failure of ours (5xx, or an error thrown) at error', () => {
    for (const status of [500, 503, 504])
      expect({ status, level: httpLogLevel(status) }).toEqual({ status, level: 'error' });
    expect(httpLogLevel(200, new Error('socket hang up'))).toBe('error');
  });
});
