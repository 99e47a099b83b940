import { StatusError } from '@rollout/contracts';
import { validateRule } from './rule-validation';

function violations(input: unknown, options = {}): string {
  try {
    validateRule(input, options);
  } catch (error) {
    expect(error).toBeInstanceOf(StatusError);
    return (error as StatusError).message;
  }
  throw new Error('expected the rule to be refused');
}

describe('rule validation', () => {
  it('needs only actions, and fills in defaults (default scope for user rules)', () => {
    expect(
      validateRule({ actions: [{ op: 'log', args: ['hi'] }] }, { defaultScope: 'lab' }),
    ).toEqual({
      priority: 0,
      description: null,
      scope: 'lab',
      sensitive: false,
      phase: 'main',
      conditions: [],
      actions: [{ op: 'log', args: ['hi'] }],
    });
  });

  it.each([
    [{}, /actions: is required/],
    [{ actions: null }, /actions: is required/],
    [{ actions: [] }, /actions: must not be empty/],
    [{ actions: [{ op: 'explode' }] }, /actions\[0\]: unknown action "explode"/],
    [{ actions: [{ op: 'log' }] }, /log is missing its "msg" argument/],
    [{ actions: [{ op: 'log', args: ['a', 'info', 'extra'] }] }, /at most 2 arguments/],
    [{ actions: [{ op: 'log', args: { message: 'x' } }] }, /log has no argument "message"/],
    [{ actions: [{ op: 'log', args: ['x'], when: 1 }] }, /unknown field when/],
    [
      { conditions: [{ op: 'is-maybe', args: [1] }], actions: [{ op: 'log', args: ['x'] }] },
      /unknown condition "is-maybe"/,
    ],
    [
      {
        conditions: [{ op: 'eq', args: [1, 1], multiple: 'most' }],
        actions: [{ op: 'log', args: ['x'] }],
      },
      /"multiple" must be one of/,
    ],
    [
      { priority: 10000, actions: [{ op: 'log', args: ['x'] }] },
      /priority: must be between 0 and 9999/,
    ],
    [
      { priority: -1, actions: [{ op: 'log', args: ['x'] }] },
      /priority: must be between 0 and 9999/,
    ],
    [
      { phase: 'late', actions: [{ op: 'log', args: ['x'] }] },
      /phase: must be one of early, preprocess, main/,
    ],
    [{ built_in: true, actions: [{ op: 'log', args: ['x'] }] }, /built_in: built_in is read-only/],
    [{ uuid: 'nope', actions: [{ op: 'log', args: ['x'] }] }, /uuid: must be a UUID/],
    [
      { phase: 'early', actions: [{ op: 'set-attribute', args: ['/driver', 'x'] }] },
      /set-attribute cannot run in the early phase/,
    ],
    [
      { phase: 'early', actions: [{ op: 'log', args: ['{node.uuid}'] }] },
      /\{node…\} is not available in the early phase/,
    ],
    [{ actions: [{ op: 'log', args: ['{os.environ}'] }] }, /unknown name "os"/],
    [{ actions: [{ op: 'log', args: ['{node.__class__!r}'] }] }, /only lookups are allowed/],
    [{ actions: [{ op: 'log', args: ['{node'] }] }, /unclosed "\{"/],
    [
      {
        conditions: [{ op: 'contains', args: ['{node.x}', '(a+)+$'] }],
        actions: [{ op: 'log', args: ['x'] }],
      },
      /catastrophic backtracking/,
    ],
    [{ actions: [{ op: 'log', args: ['x'], loop: 'not a template' }] }, /"loop" must be a list/],
    [
      { actions: [{ op: 'log', args: ['x'], loop: Array(1001).fill(1) }] },
      /"loop" has more than 1000 items/,
    ],
    [
      { conditions: [{ op: 'eq', args: [1] }], actions: [{ op: 'log', args: ['x'] }] },
      /eq: one argument is the list of values to compare/,
    ],
    // In a loop Ironic formats the regex too: `{{2,}}` becomes `{2,}`.
    [
      {
        conditions: [{ op: 'contains', args: ['{node.x}', '(a+){{2,}}'], loop: [1] }],
        actions: [{ op: 'log', args: ['x'] }],
      },
      /catastrophic/,
    ],
    [
      {
        conditions: [{ op: 'matches', args: ['{node.x}', 'a?'.repeat(30) + 'a'.repeat(30)] }],
        actions: [{ op: 'log', args: ['x'] }],
      },
      /backtrack too much/,
    ],
    [
      {
        conditions: [{ op: 'is-empty', args: ['{plugin_data[bmc_address}'] }],
        actions: [{ op: 'log', args: ['x'] }],
      },
      /conditions\[0\]: bad index in \{plugin_data\[bmc_address\}/,
    ],
    [
      { description: 'nul\u0000', actions: [{ op: 'log', args: ['x\u0000'] }] },
      /description: must not contain NUL characters; actions: must not contain NUL/,
    ],
    [
      {
        description: 'a\ud800',
        scope: '\udc00b',
        conditions: [{ op: 'eq', args: { values: ['\ud83d\ude00', '\ud83d'] } }],
        actions: [{ op: 'log', args: { '\ude00': 'x' } }],
      },
      /description: must not contain unpaired UTF-16 surrogates; scope: must not contain unpaired UTF-16 surrogates; conditions: must not contain unpaired UTF-16 surrogates; actions: must not contain unpaired UTF-16 surrogates/,
    ],
    [{ steps: [], actions: [{ op: 'log', args: ['x'] }] }, /steps: unknown field/],
    [[{ actions: [] }], /must be a JSON object/],
  ])('refuses %j, naming the problem', (input, message) => {
    expect(violations(input)).toMatch(message);
  });

  it.each([
    ['args: []', { op: 'eq', args: [] }],
    ['args: {}', { op: 'eq', args: {} }],
    ['no args', { op: 'eq' }],
    ['only force_strings', { op: 'lt', args: { force_strings: true } }],
    ['inverted, no args', { op: '!gt', args: [] }],
  ])('refuses a comparison without values (%s), naming values as Ironic does', (_, condition) => {
    expect(violations({ conditions: [condition], actions: [{ op: 'log', args: ['x'] }] })).toMatch(
      /conditions\[0\]: (eq|lt|gt) is missing its "values" argument/,
    );
  });

  it('accepts an empty list of values given by name or as the one argument, as Ironic does', () => {
    for (const args of [{ values: [] }, [[]]])
      expect(
        validateRule({ conditions: [{ op: 'eq', args }], actions: [{ op: 'log', args: ['x'] }] })
          .conditions,
      ).toEqual([{ op: 'eq', args }]);
  });

  it('takes text outside the Basic Multilingual Plane (a surrogate pair)', () => {
    const rule = { description: 'rack 😀', actions: [{ op: 'log', args: ['\ud83d\ude00'] }] };
    expect(validateRule(rule)).toMatchObject(rule);
  });

  it('lets built-in rules use reserved priorities', () => {
    expect(
      validateRule({ priority: -5, actions: [{ op: 'log', args: ['x'] }] }, { builtIn: true })
        .priority,
    ).toBe(-5);
  });
});
