import { applyJsonPatch } from './json-pointer';
import { STORED_SENSITIVE_RULE } from '../test/rule-factory';
import { patchRule } from './rule-patch';
import { RuleError } from './errors';

describe('rules as patched', () => {
  const stored = STORED_SENSITIVE_RULE;

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
