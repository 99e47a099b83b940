import { LineBuffer, consoleLine } from './console-lines';

describe('service log lines on a terminal', () => {
  const time = new Date(2026, 10, 25, 9, 41, 7).toISOString();

  it('hides lines below a warning', () => {
    expect(
      consoleLine(
        'gateway',
        JSON.stringify({ level: 'info', time, service: 'gateway', msg: 'request completed' }),
      ),
    ).toBeUndefined();
    expect(
      consoleLine('gateway', JSON.stringify({ level: 30, time, msg: 'listening' })),
    ).toBeUndefined();
    expect(
      consoleLine('gateway', JSON.stringify({ level: 'debug', time, msg: 'x' })),
    ).toBeUndefined();
  });

  it('shows a warning or an error as one readable line: time, level, service, message, request, error, fields', () => {
    const warn = {
      level: 'warn',
      time,
      pid: 42,
      hostname: 'h',
      service: 'gateway',
      reqId: 'r-1',
      req: { method: 'GET', url: '/v1/nope', headers: {} },
      res: { statusCode: 404 },
      responseTime: 3,
      msg: 'request completed',
    };
    expect(consoleLine('gateway', JSON.stringify(warn))).toBe(
      '09:41:07 WARN  gateway: request completed GET /v1/nope → 404 reqId=r-1',
    );
    const error = {
      level: 50,
      time,
      service: 'evaluator',
      err: { type: 'Error', message: 'connection refused', stack: 'Error: …' },
      batch: 7,
      reason: 'postgres is down',
      msg: 'batch failed',
    };
    expect(consoleLine('evaluator', JSON.stringify(error))).toBe(
      '09:41:07 ERROR evaluator: batch failed (Error: connection refused) batch=7 reason="postgres is down"',
    );
    expect(consoleLine('evaluator', JSON.stringify({ level: 'fatal', time, msg: 'gone' }))).toBe(
      '09:41:07 FATAL evaluator: gone',
    );
  });

  it('passes on what is not a log entry, such as a configuration error before the logger exists', () => {
    expect(
      consoleLine('evaluator', 'evaluator: invalid configuration: NATS_URL must be a URL'),
    ).toBe('evaluator: evaluator: invalid configuration: NATS_URL must be a URL');
    expect(consoleLine('evaluator', '')).toBeUndefined();
  });

  it('cuts chunks into lines, holding a partial line until it ends', () => {
    const buffer = new LineBuffer();
    expect(buffer.push('{"a":1}\n{"b"')).toEqual(['{"a":1}']);
    expect(buffer.push(':2}\r\nlast')).toEqual(['{"b":2}']);
    expect(buffer.flush()).toEqual(['last']);
    expect(buffer.flush()).toEqual([]);
  });
});
