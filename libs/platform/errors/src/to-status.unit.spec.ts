import { BadRequestException, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { StatusError } from '@rollout/contracts';
import { toStatus } from './to-status';

describe('toStatus', () => {
  it('keeps a StatusError as it is', () => {
    const error = StatusError.invalidArgument('bad id', [
      { field: 'experimentId', description: 'must match AIP-122' },
    ]);
    expect(toStatus(error)).toEqual({
      status: {
        code: 400,
        status: 'INVALID_ARGUMENT',
        message: 'bad id',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.BadRequest',
            fieldViolations: [{ field: 'experimentId', description: 'must match AIP-122' }],
          },
        ],
      },
    });
  });

  it('passes on a Status that crossed NATS', () => {
    const status = { code: 409, status: 'ABORTED' as const, message: 'etag mismatch', details: [] };
    expect(toStatus(status)).toEqual({ status });
  });

  it('maps the HTTP stack client errors to canonical codes, keeping their HTTP status', () => {
    expect(toStatus(new NotFoundException('Cannot GET /nope')).status).toMatchObject({
      code: 404,
      status: 'NOT_FOUND',
    });
    expect(toStatus(new BadRequestException('Unexpected token')).status).toMatchObject({
      code: 400,
      status: 'INVALID_ARGUMENT',
    });
    expect(toStatus(new PayloadTooLargeException()).status).toMatchObject({
      code: 413,
      status: 'INVALID_ARGUMENT',
    });
    // body-parser's errors are plain objects with a status
    const parseError = Object.assign(new SyntaxError('Unexpected token } in JSON'), {
      status: 400,
    });
    expect(toStatus(parseError).status).toMatchObject({
      code: 400,
      message: 'Unexpected token } in JSON',
    });
  });

  it('answers UNAVAILABLE, with an error id, when a dependency is down or restarting', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    const shutdown = Object.assign(
      new Error('terminating connection due to administrator command'),
      { code: '57P01' },
    );
    const closed = Object.assign(
      new Error('database "run" is not currently accepting connections'),
      { code: '55000' },
    );
    // TypeORM's QueryFailedError keeps the driver's error.
    const wrapped = Object.assign(new Error('query failed'), {
      driverError: new Error('Connection terminated unexpectedly'),
    });
    for (const error of [
      refused,
      shutdown,
      closed,
      wrapped,
      new Error('timeout exceeded when trying to connect'),
    ]) {
      const mapped = toStatus(error);
      expect(mapped.status).toMatchObject({
        code: 503,
        status: 'UNAVAILABLE',
        details: [{ reason: 'DEPENDENCY_UNAVAILABLE', metadata: { errorId: mapped.errorId } }],
      });
      expect(mapped.status.message).not.toContain('5432');
    }
    const otherPrecondition = Object.assign(new Error('cannot drop the index'), { code: '55000' });
    expect(toStatus(otherPrecondition).status.status).toBe('INTERNAL');
    expect(
      toStatus(Object.assign(new Error('duplicate key'), { code: '23505' })).status.status,
    ).toBe('INTERNAL');
  });

  it('hides an unexpected error behind INTERNAL and an error id', () => {
    const mapped = toStatus(
      new Error('relation "secrets" does not exist at 10.0.0.3 password=hunter2'),
    );
    expect(mapped.errorId).toMatch(/^[0-9a-f-]{36}$/);
    expect(mapped.status.code).toBe(500);
    expect(mapped.status.status).toBe('INTERNAL');
    expect(mapped.status.message).toContain(mapped.errorId);
    expect(JSON.stringify(mapped.status)).not.toMatch(/secrets|hunter2|10\.0\.0\.3/);
  });

  it('does not trust server errors of the HTTP stack with the client', () => {
    const mapped = toStatus(Object.assign(new Error('pool exhausted: db-7'), { status: 502 }));
    expect(mapped.status.status).toBe('INTERNAL');
    expect(mapped.status.message).not.toContain('db-7');
  });
});
