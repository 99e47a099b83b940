import { StatusError } from '@rollout/contracts';
import { applyJsonPatch } from './json-pointer';
import { compileSafeRegex } from './safe-regex';
import { RuleDefinition, publicRule, validatePatchedRule, validateRule } from './rule';
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
    expect(validateRule({ actions: [{ op: 'log', args: ['hi'] }] }, { defaultScope: 'lab' })).toEqual({
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
    [{ actions: [] }, /actions: must not be empty/],
    [{ actions: [{ op: 'explode' }] }, /actions\[0\]: unknown action "explode"/],
    [{ actions: [{ op: 'log' }] }, /log is missing its "msg" argument/],
    [{ actions: [{ op: 'log', args: ['a', 'info', 'extra'] }] }, /at most 2 arguments/],
    [{ actions: [{ op: 'log', args: { message: 'x' } }] }, /log has no argument "message"/],
    [{ actions: [{ op: 'log', args: ['x'], when: 1 }] }, /unknown field when/],
    [{ conditions: [{ op: 'is-maybe', args: [1] }], actions: [{ op: 'log', args: ['x'] }] }, /unknown condition "is-maybe"/],
    [{ conditions: [{ op: 'eq', args: [1, 1], multiple: 'most' }], actions: [{ op: 'log', args: ['x'] }] }, /"multiple" must be one of/],
    [{ priority: 10000, actions: [{ op: 'log', args: ['x'] }] }, /priority: must be between 0 and 9999/],
    [{ priority: -1, actions: [{ op: 'log', args: ['x'] }] }, /priority: must be between 0 and 9999/],
    [{ phase: 'late', actions: [{ op: 'log', args: ['x'] }] }, /phase: must be one of early, preprocess, main/],
    [{ built_in: true, actions: [{ op: 'log', args: ['x'] }] }, /built_in: built_in is read-only/],
    [{ uuid: 'nope', actions: [{ op: 'log', args: ['x'] }] }, /uuid: must be a UUID/],
    [{ phase: 'early', actions: [{ op: 'set-attribute', args: ['/driver', 'x'] }] }, /set-attribute cannot run in the early phase/],
    [{ phase: 'early', actions: [{ op: 'log', args: ['{node.uuid}'] }] }, /\{node…\} is not available in the early phase/],
    [{ actions: [{ op: 'log', args: ['{os.environ}'] }] }, /unknown name "os"/],
    [{ actions: [{ op: 'log', args: ['{node.__class__!r}'] }] }, /only lookups are allowed/],
    [{ actions: [{ op: 'log', args: ['{node'] }] }, /unclosed "\{"/],
    [{ conditions: [{ op: 'contains', args: ['{node.x}', '(a+)+$'] }], actions: [{ op: 'log', args: ['x'] }] }, /catastrophic backtracking/],
    [{ actions: [{ op: 'log', args: ['x'], loop: 'not a template' }] }, /"loop" must be a list/],
  ])('refuses %j, naming the problem', (input, message) => {
    expect(violations(input)).toMatch(message);
  });

  it('lets built-in rules use reserved priorities', () => {
    expect(validateRule({ priority: -5, actions: [{ op: 'log', args: ['x'] }] }, { builtIn: true }).priority).toBe(-5);
  });
});

describe('safe regexes', () => {
  it.each(['(a+)+', '(a|aa)*', '(x*)*y', '(\\w+\\s?)+$', '(a)\\1', '(?:a{2,})+'])('refuses %s', (pattern) => {
    expect(() => compileSafeRegex(pattern, false)).toThrow(RuleError);
  });

  it.each(['(?i)dell', '^ib\\d+$', '(ab)+', '[a-z]+(-[0-9]+)?', 'a|b', '(?:eth|en)[0-9]'])('accepts %s', (pattern) => {
    expect(compileSafeRegex(pattern, false)).toBeInstanceOf(RegExp);
  });

  it('refuses very long patterns', () => {
    expect(() => compileSafeRegex('a'.repeat(600), false)).toThrow(/longer than 512/);
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

  it('never returns a sensitive rule\'s conditions and actions, and a summary leaves them out', () => {
    expect(publicRule(stored)).toMatchObject({ conditions: null, actions: null });
    expect(publicRule(stored, false)).not.toHaveProperty('conditions');
    expect(publicRule({ ...stored, sensitive: false }).actions).toEqual(stored.actions);
  });

  it('applies a JSON patch and validates the result', () => {
    const patched = applyJsonPatch({ ...stored }, [
      { op: 'replace', path: '/priority', value: 7 },
      { op: 'add', path: '/actions/-', value: { op: 'log', args: ['x'] } },
      { op: 'remove', path: '/description' },
    ]);
    const fields = validatePatchedRule(stored, patched);
    expect(fields).toMatchObject({ priority: 7, description: null });
    expect(fields.actions).toHaveLength(2);
  });

  it.each([
    [[{ op: 'replace', path: '/built_in', value: true }], /built_in cannot be changed/],
    [[{ op: 'replace', path: '/sensitive', value: false }], /cannot be made non-sensitive/],
    [[{ op: 'replace', path: '/priority', value: 10000 }], /priority: must be between 0 and 9999/],
  ])('refuses %j', (patch, message) => {
    expect(() => validatePatchedRule(stored, applyJsonPatch({ ...stored }, patch))).toThrow(message);
  });

  it('refuses a malformed patch', () => {
    expect(() => applyJsonPatch({}, [{ op: 'remove', path: '/nope' }])).toThrow(/does not exist/);
    expect(() => applyJsonPatch({}, { op: 'add' })).toThrow(/list of operations/);
  });
});
