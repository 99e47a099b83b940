import type { ValidationError } from 'class-validator';
import { invalidFields, textProblem, violationsOf } from './field-violations';

const error = (
  property: string,
  value: unknown,
  constraints?: Record<string, string>,
  children: ValidationError[] = [],
): ValidationError => ({ property, value, constraints, children });

describe("class-validator's errors in the project's one wording", () => {
  it('says unknown field, required, and bounds with their numbers, whatever class-validator said', () => {
    expect(
      violationsOf([
        error('colour', 'red', { whitelistValidation: 'property colour should not exist' }),
        error('firewallPolicyId', undefined, {
          maxLength: 'firewallPolicyId must be shorter than or equal to 63 characters',
          isString: 'firewallPolicyId must be a string',
        }),
        error('displayName', 'x'.repeat(70), {
          maxLength: 'displayName must be shorter than or equal to 63 characters',
        }),
        error('pageSize', 5000, { max: 'pageSize must not be greater than 1000' }),
        error('direction', 'UP', {
          isEnum: 'direction must be one of the following values: INGRESS, EGRESS',
        }),
      ]),
    ).toEqual([
      { field: 'colour', description: 'unknown field' },
      { field: 'firewallPolicyId', description: 'required' },
      { field: 'displayName', description: 'must be at most 63 characters' },
      { field: 'pageSize', description: 'must be at most 1000' },
      { field: 'direction', description: 'must be one of: INGRESS, EGRESS' },
    ]);
  });

  it('names a nested field by its JSON path, and keeps a message a DTO wrote for people', () => {
    const nested = error('rules', [], undefined, [
      error('0', {}, undefined, [
        error('priority', 'high', { isInt: 'priority must be an integer number' }),
        error('endDate', 'soon', { isRfc: 'endDate must be an RFC 3339 timestamp' }),
      ]),
    ]);
    expect(violationsOf([nested])).toEqual([
      { field: 'rules[0].priority', description: 'must be an integer' },
      { field: 'rules[0].endDate', description: 'must be an RFC 3339 timestamp' },
    ]);
  });

  it('answers INVALID_ARGUMENT whose message says what the violations name', () => {
    const status = invalidFields([
      { field: 'colour', description: 'unknown field' },
      { field: 'pageSize', description: 'must be at most 1000' },
    ]).toStatus();
    expect(status).toMatchObject({
      code: 400,
      status: 'INVALID_ARGUMENT',
      message: 'colour is an unknown field; pageSize must be at most 1000.',
    });
  });

  it.each([
    ['a lone high surrogate', 'a\ud800b', 'must not contain an unpaired UTF-16 surrogate'],
    ['a lone low surrogate', '\udc00', 'must not contain an unpaired UTF-16 surrogate'],
    ['a reversed pair', '\ude00\ud83d', 'must not contain an unpaired UTF-16 surrogate'],
    ['a NUL', 'a\u0000', 'must not contain a NUL character'],
  ])('says what makes a text unfit for any field: %s', (_, text, problem) => {
    expect(textProblem(text)).toBe(problem);
  });

  it('finds nothing wrong with ordinary text, astral characters (surrogate pairs) included', () => {
    expect(['', 'plain', 'ünïcödé', '😀 rack 7', '\ud83d\ude00'].map(textProblem)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
