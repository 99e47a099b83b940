import { headerSafe } from './dead-letter';

describe('dead-letter reasons', () => {
  it('escapes control characters, which NATS headers cannot carry, and keeps the rest as written', () => {
    expect(headerSafe('srcIp "10.0.0.1\r\nX: y" is not an IP address')).toBe(
      'srcIp "10.0.0.1\\u000d\\u000aX: y" is not an IP address',
    );
    expect(headerSafe('ünïcode \u007f')).toBe('ünïcode \\u007f');
  });
});
