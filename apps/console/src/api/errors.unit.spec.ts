import { errorFromResponse } from './errors';

describe('API errors as the console shows them', () => {
  it('is the API message as a sentence, with what the operator can do', () => {
    const error = errorFromResponse(401, {
      error: {
        code: 401,
        status: 'UNAUTHENTICATED',
        message: 'A valid bearer token is required.',
        details: [],
      },
    });
    expect(error.message).toBe(
      'A valid bearer token is required. Sign in again with a valid token.',
    );
    expect(error.code).toBe('UNAUTHENTICATED');
  });

  it('keeps the field violations, to show each beside its rule', () => {
    const violation = {
      field: 'firewallPolicy.rules[1].priority',
      description: 'priority 1000 is already used by rules[0]',
    };
    const error = errorFromResponse(400, {
      error: {
        code: 400,
        status: 'INVALID_ARGUMENT',
        message: 'the policy is not valid',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [violation] },
        ],
      },
    });
    expect(error.message).toBe('The policy is not valid.');
    expect(error.fieldViolations).toEqual([violation]);
  });

  it('names the error id of an internal error once', () => {
    const errorInfo = (errorId: string) => ({
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'INTERNAL',
      domain: 'policy-rollout',
      metadata: { errorId },
    });
    const unnamed = errorFromResponse(500, {
      error: {
        code: 500,
        status: 'INTERNAL',
        message: 'Internal error',
        details: [errorInfo('e-1')],
      },
    });
    expect(unnamed.message).toBe('Internal error. Report it with the error id. Error id e-1.');
    const named = errorFromResponse(503, {
      error: {
        code: 503,
        status: 'UNAVAILABLE',
        message: 'Retry; quote error id e-2.',
        details: [errorInfo('e-2')],
      },
    });
    expect(named.message).not.toMatch(/Error id e-2/);
  });

  it('never shows a body that is not the error model', () => {
    const error = errorFromResponse(502, '<html>Bad gateway</html>');
    expect(error.message).toBe('The gateway answered 502 without an explanation.');
    expect(error.message).not.toContain('<html>');
  });
});
