import { StatusError } from '@rollout/contracts';
import { applyJsonPatch } from './json-pointer';
import { compileSafeRegex, regexTest } from './safe-regex';
import { RuleDefinition, patchRule, publicRule, validateRule } from './rule';
import { RuleError } from './errors';

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
    [{ steps: [], actions: [{ op: 'log', args: ['x'] }] }, /steps: unknown field/],
    [[{ actions: [] }], /must be a JSON object/],
  ])('refuses %j, naming the problem', (input, message) => {
    expect(violations(input)).toMatch(message);
  });

  it('lets built-in rules use reserved priorities', () => {
    expect(
      validateRule({ priority: -5, actions: [{ op: 'log', args: ['x'] }] }, { builtIn: true })
        .priority,
    ).toBe(-5);
  });
});

describe('safe regexes', () => {
  it.each([
    ['(a+)+', /catastrophic/],
    ['(a|aa)*', /catastrophic/],
    ['(x*)*y', /catastrophic/],
    ['(\\w+\\s?)+$', /catastrophic/],
    ['(?:a{2,})+', /catastrophic/],
    ['(a)\\1', /backreferences/],
    ['(?P<x>a)(?P=x)', /backreferences/],
    // No nesting, but each `a?` doubles the paths a backtracking engine may try.
    ['a?'.repeat(25) + 'a'.repeat(25), /backtrack too much/],
    ['.*a.*b.*c.*d.*e', /backtrack too much/],
    ['(.*,){6}x', /backtrack too much/],
    ['(?x) a b', /verbose/],
    ['a(?i)b', /inline flags only at the very start/],
    ['(ab', /unbalanced/],
    ['+a', /nothing to repeat/],
  ])('refuses %s', (pattern, message) => {
    expect(() => compileSafeRegex(pattern, false)).toThrow(message);
  });

  it.each([
    '(?i)dell',
    '^ib\\d+$',
    '(ab)+',
    '[a-z]+(-[0-9]+)?',
    'a|b',
    '(?:eth|en)[0-9]',
    '(?P<vendor>dell|hpe)',
    '.*foo.*bar',
  ])('accepts %s', (pattern) => {
    expect(compileSafeRegex(pattern, false).regex).toBeInstanceOf(RegExp);
  });

  it('refuses very long patterns', () => {
    expect(() => compileSafeRegex('a'.repeat(600), false)).toThrow(/longer than 512/);
  });

  it('reads Python syntax: full matches whatever the flags, \\A and \\Z, ] first in a set, named groups', () => {
    expect(regexTest('dell\nhpe', '(?m)dell', true)).toBe(false);
    expect(regexTest('dell\nhpe', '(?m)^hpe$', false)).toBe(true);
    expect(regexTest('Dell', '(?i)DELL', true)).toBe(true);
    expect(regexTest('x\nhello', '\\Ahello', false)).toBe(false);
    expect(regexTest('hello\n', 'hello\\Z', false)).toBe(false);
    expect(regexTest('a]', '[]a]+', true)).toBe(true);
    expect(regexTest('vendor dell', '(?P<v>dell)', false)).toBe(true);
    expect(regexTest(42, '^4\\d$', false)).toBe(true);
    expect(regexTest(null, '.*', false)).toBe(false);
  });

  it('tries a costly pattern only on values short enough to stay within the budget', () => {
    const { maxSubject } = compileSafeRegex('.*a.*b', false);
    expect(maxSubject).toBeLessThan(1000);
    expect(regexTest('a'.repeat(maxSubject), '.*a.*b', false)).toBe(false);
    expect(() => regexTest('a'.repeat(maxSubject + 1), '.*a.*b', false)).toThrow(
      /too long for this regex \(at most \d+/,
    );
    expect(compileSafeRegex('(?i)dell', false).maxSubject).toBe(16_384);
    expect(() => regexTest('x'.repeat(16_385), 'dell', false)).toThrow(/too long/);
  });
});

describe('rules as read and patched', () => {
  const stored: RuleDefinition = {
    uuid: '7d7b2c0e-0000-4000-8000-000000000001',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: null,
    priority: 1,
    description: 'bmc',
    scope: null,
    sensitive: true,
    phase: 'main',
    conditions: [{ op: 'is-true', args: ['{node.auto_discovered}'] }],
    actions: [{ op: 'set-attribute', args: ['/driver_info/ipmi_password', 'x'] }],
    built_in: false,
  };

  it("never returns a sensitive rule's conditions and actions, and a summary leaves them out", () => {
    expect(publicRule(stored)).toMatchObject({ conditions: null, actions: null });
    expect(publicRule(stored, false)).not.toHaveProperty('conditions');
    expect(publicRule({ ...stored, sensitive: false }).actions).toEqual(stored.actions);
  });

  it('applies every RFC 6902 operation to a copy', () => {
    const original = { a: { b: 1 }, list: [1, 2] };
    const patched = applyJsonPatch(original, [
      { op: 'copy', from: '/a/b', path: '/c' },
      { op: 'move', from: '/list/0', path: '/list/-' },
      { op: 'test', path: '/c', value: 1 },
      { op: 'replace', path: '/a/b', value: 'x' },
    ]);
    expect(patched).toEqual({ a: { b: 'x' }, c: 1, list: [2, 1] });
    expect(original).toEqual({ a: { b: 1 }, list: [1, 2] });
    expect(() => applyJsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }])).toThrow(
      RuleError,
    );
    expect(() => applyJsonPatch({ a: 1 }, [{ op: 'add', path: '/__proto__/x', value: 2 }])).toThrow(
      /not allowed/,
    );
  });

  it('applies a JSON patch and validates the result', () => {
    const fields = patchRule(stored, [
      { op: 'replace', path: '/priority', value: 7 },
      { op: 'add', path: '/actions/-', value: { op: 'log', args: ['x'] } },
      { op: 'remove', path: '/description' },
    ]);
    expect(fields).toMatchObject({ priority: 7, description: null });
    expect(fields.actions).toHaveLength(2);
  });

  it.each([
    [[{ op: 'replace', path: '/built_in', value: true }], /built_in cannot be changed/],
    [
      [{ op: 'replace', path: '/uuid', value: '7d7b2c0e-0000-4000-8000-000000000002' }],
      /uuid cannot be changed/,
    ],
    [[{ op: 'replace', path: '/sensitive', value: false }], /cannot be made non-sensitive/],
    [[{ op: 'remove', path: '/sensitive' }], /cannot be made non-sensitive/],
    [[{ op: 'replace', path: '/priority', value: 10000 }], /priority: must be between 0 and 9999/],
    [[{ op: 'replace', path: '/priority', value: -1 }], /priority: must be between 0 and 9999/],
  ])('refuses %j', (patch, message) => {
    expect(() => patchRule(stored, patch)).toThrow(message);
  });

  it('refuses a malformed patch, naming the problem for a rule that is not sensitive', () => {
    const open = { ...stored, sensitive: false };
    expect(() => patchRule(open, [{ op: 'remove', path: '/nope' }])).toThrow(
      /path \/nope does not exist/,
    );
    expect(() => patchRule(open, { op: 'add' })).toThrow(/list of operations/);
    expect(() =>
      patchRule(open, [{ op: 'replace', path: '/actions/0/op', value: 'explode' }]),
    ).toThrow(/unknown action "explode"/);
  });

  it("never lets a patch read or echo a sensitive rule's conditions and actions", () => {
    const refusals = [
      [{ op: 'test', path: '/actions/0/args/1', value: 'x' }],
      [{ op: 'copy', from: '/actions/0/args/1', path: '/description' }],
      [{ op: 'move', from: '/conditions/0', path: '/actions/-' }],
      // Errors about a patch that does not apply, or about content it made invalid, say nothing of the content.
      [{ op: 'remove', path: '/actions/0/args/5' }],
      [
        { op: 'replace', path: '/conditions/0/op', value: 'contains' },
        { op: 'add', path: '/conditions/0/args/-', value: '(' },
      ],
    ];
    for (const patch of refusals) {
      let message = '';
      try {
        patchRule(stored, patch);
      } catch (error) {
        message = JSON.stringify(error) + (error as Error).message;
      }
      expect(message).toMatch(/Invalid patch|Invalid inspection rule/);
      expect(message).not.toMatch(/ipmi_password|auto_discovered|"\("/);
    }
  });
});
