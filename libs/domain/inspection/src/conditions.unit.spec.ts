import { RuleSet } from './engine';
import type { InspectionData, InspectionRuleStep } from '@rollout/contracts';
import { rule } from '../test/rule-factory';

/** Runs one condition through the engine: does a rule with it match? */
function holds(condition: InspectionRuleStep, data: InspectionData = {}): boolean {
  const set = new RuleSet(
    [rule({ conditions: [condition], actions: [{ op: 'log', args: ['hit'] }] })],
    { maskSecrets: 'always' },
  );
  const result = set.run('main', { node: {}, ...data });
  if (result.failure) throw new Error(result.failure);
  return result.matched.length === 1;
}

function failure(condition: InspectionRuleStep, data: InspectionData = {}): string | null {
  const set = new RuleSet(
    [rule({ conditions: [condition], actions: [{ op: 'log', args: ['hit'] }] })],
    { maskSecrets: 'always' },
  );
  return set.run('main', { node: {}, ...data }).failure;
}

describe('conditions', () => {
  it.each([
    [true, true, false],
    ['yes', true, false],
    ['TRUE', true, false],
    [5, true, false],
    [false, false, true],
    ['No', false, true],
    ['false', false, true],
    [0, false, true],
    [null, false, true],
    ['banana', false, false],
  ])('is-true / is-false of %j: %s / %s', (value, isTrue, isFalse) => {
    expect(holds({ op: 'is-true', args: [value] })).toBe(isTrue);
    expect(holds({ op: 'is-false', args: [value] })).toBe(isFalse);
  });

  it('is-none and is-empty', () => {
    expect(holds({ op: 'is-none', args: [null] })).toBe(true);
    expect(holds({ op: 'is-none', args: [''] })).toBe(false);
    for (const empty of [null, '', [], {}])
      expect(holds({ op: 'is-empty', args: [empty] })).toBe(true);
    for (const full of ['x', [1], { a: 1 }, 0])
      expect(holds({ op: 'is-empty', args: [full] })).toBe(false);
  });

  it('a missing key in a condition reads as null', () => {
    expect(holds({ op: 'is-none', args: ['{inventory[nope][deeper]}'] })).toBe(true);
    expect(holds({ op: 'is-empty', args: ['{node.driver_info[ipmi_address]}'] })).toBe(true);
    expect(holds({ op: 'is-empty', args: ['prefix-{inventory[nope]}'] })).toBe(true);
  });

  it('eq compares values as given unless force_strings', () => {
    expect(holds({ op: 'eq', args: [4, 4, 4] })).toBe(true);
    expect(holds({ op: 'eq', args: ['4', 4] })).toBe(false);
    expect(holds({ op: 'eq', args: { values: ['4', 4], force_strings: true } })).toBe(true);
    expect(holds({ op: 'eq', args: [{ a: [1] }, { a: [1] }] })).toBe(true);
  });

  it('runs a comparison without values that was stored before saving refused it, as before: it holds', () => {
    const stored = { ...rule({ actions: [{ op: 'log', args: ['hit'] }] }) };
    stored.conditions = [{ op: 'eq', args: [] }];
    const result = new RuleSet([stored], { maskSecrets: 'always' }).run('main', { node: {} });
    expect(result.failure).toBeNull();
    expect(result.matched).toHaveLength(1);
  });

  it('lt and gt order numbers and strings, and refuse mixed types with a clear message', () => {
    expect(holds({ op: 'lt', args: [1, 2, 3] })).toBe(true);
    expect(holds({ op: 'lt', args: [1, 3, 2] })).toBe(false);
    expect(holds({ op: 'gt', args: ['b', 'a'] })).toBe(true);
    expect(holds({ op: 'gt', args: { values: [10, '9'], force_strings: true } })).toBe(false);
    expect(failure({ op: 'lt', args: ['4', 5] })).toMatch(/cannot compare string with number/);
  });

  it('in-net works for IPv4 and IPv6', () => {
    expect(holds({ op: 'in-net', args: ['10.1.2.3', '10.0.0.0/8'] })).toBe(true);
    expect(holds({ op: 'in-net', args: ['11.1.2.3', '10.0.0.0/8'] })).toBe(false);
    expect(holds({ op: 'in-net', args: ['2001:db8::1', '2001:db8::/32'] })).toBe(true);
    expect(holds({ op: 'in-net', args: ['2001:db9::1', '2001:db8::/32'] })).toBe(false);
    expect(holds({ op: 'in-net', args: ['::ffff:10.0.0.1', '::ffff:0:0/96'] })).toBe(true);
    expect(holds({ op: 'in-net', args: ['10.0.0.1', '2001:db8::/32'] })).toBe(false);
    // As Ironic (netaddr): what is not an address is an error, so `!in-net` never matches it.
    expect(failure({ op: 'in-net', args: [null, '10.0.0.0/8'] })).toMatch(
      /null is not an IP address/,
    );
    expect(failure({ op: '!in-net', args: ['bmc.example', '10.0.0.0/8'] })).toMatch(
      /"bmc.example" is not an IP address/,
    );
    expect(failure({ op: 'in-net', args: ['10.0.0.1', 'not-a-net'] })).toMatch(/is not a subnet/);
  });

  it('contains searches and matches matches fully, with Python inline flags', () => {
    expect(holds({ op: 'contains', args: ['Dell Inc.', '(?i)dell'] })).toBe(true);
    expect(holds({ op: 'contains', args: ['HPE', '(?i)dell'] })).toBe(false);
    expect(holds({ op: 'matches', args: ['Dell Inc.', 'Dell'] })).toBe(false);
    expect(holds({ op: 'matches', args: ['Dell', 'Del+'] })).toBe(true);
    expect(holds({ op: 'matches', args: ['ab|c', 'a|c'] })).toBe(false);
  });

  it('one-of works for non-strings', () => {
    expect(holds({ op: 'one-of', args: [2, [1, 2, 3]] })).toBe(true);
    expect(holds({ op: 'one-of', args: ['2', [1, 2, 3]] })).toBe(false);
    expect(failure({ op: 'one-of', args: [2, 'nope'] })).toMatch(/needs a list/);
  });

  it('! inverts, with or without a space', () => {
    expect(holds({ op: '!eq', args: [1, 2] })).toBe(true);
    expect(holds({ op: '! eq', args: [1, 1] })).toBe(false);
  });
});

describe('conditions as Ironic evaluates them in Python', () => {
  it('contains and matches test null as "None", as Python\'s str(None)', () => {
    expect(holds({ op: 'matches', args: { value: null, regex: 'None' } })).toBe(true);
    expect(holds({ op: 'contains', args: { value: null, regex: 'on' } })).toBe(true);
    expect(holds({ op: '!matches', args: { value: null, regex: 'Non' } })).toBe(true);
    // A missing key reads as null in a condition (this project's reading): the same applies.
    expect(holds({ op: 'matches', args: ['{inventory[gone]}', 'None'] }, { inventory: {} })).toBe(
      true,
    );
  });

  it('lt and gt order booleans and numbers as Python: False < True, 0 < True, True == 1', () => {
    expect(holds({ op: 'lt', args: { values: [false, true] } })).toBe(true);
    expect(holds({ op: 'lt', args: { values: [0, true] } })).toBe(true);
    expect(holds({ op: 'lt', args: { values: [true, 1] } })).toBe(false);
    expect(holds({ op: 'gt', args: { values: [2.5, true, false] } })).toBe(true);
    expect(holds({ op: 'gt', args: { values: [true, true] } })).toBe(false);
  });

  it('lt and gt order lists item by item and strings by code point, as Python', () => {
    expect(
      holds({
        op: 'lt',
        args: {
          values: [
            [1, 2],
            [1, 3],
            [1, 3, 0],
          ],
        },
      }),
    ).toBe(true);
    expect(
      holds({
        op: 'lt',
        args: {
          values: [
            [true, 'a'],
            [1, 'b'],
          ],
        },
      }),
    ).toBe(true);
    expect(holds({ op: 'gt', args: { values: [[], [null]] } })).toBe(false);
    // U+FF01 comes before U+1F600, whose first UTF-16 unit (U+D83D) is lower.
    expect(holds({ op: 'lt', args: { values: ['\uff01', '\u{1f600}'] } })).toBe(true);
  });

  it('lt and gt fail the inspection where Python cannot order the values, as in Ironic', () => {
    expect(failure({ op: 'lt', args: { values: ['4', 5] } })).toMatch(
      /cannot compare string with number/,
    );
    expect(failure({ op: 'gt', args: { values: [true, 'a'] } })).toMatch(
      /cannot compare boolean with string/,
    );
    expect(failure({ op: 'lt', args: { values: [null, null] } })).toMatch(
      /cannot compare null with null/,
    );
    expect(failure({ op: 'lt', args: { values: [{ a: 1 }, { a: 2 }] } })).toMatch(
      /cannot compare dict with dict/,
    );
    expect(
      failure({
        op: 'lt',
        args: {
          values: [
            [1, 'a'],
            [1, 2],
          ],
        },
      }),
    ).toMatch(/cannot compare string with number/);
    // As Python's all(): a pair that does not hold ends the check before an incomparable one.
    expect(holds({ op: 'lt', args: { values: [2, 1, 'x'] } })).toBe(false);
  });
});

describe('loops on conditions', () => {
  const items = [1, 2, 3];
  const isTwo: InspectionRuleStep = { op: 'eq', args: ['{item}', 2], loop: items };
  it.each([
    ['any', true],
    ['all', false],
    ['first', false],
    ['last', false],
  ] as const)('multiple=%s', (multiple, expected) => {
    expect(holds({ ...isTwo, multiple })).toBe(expected);
  });

  it.each([
    ['any', true],
    ['all', false],
    ['first', true],
    ['last', true],
  ] as const)(
    'inversion applies to each item before combining, multiple=%s',
    (multiple, expected) => {
      expect(holds({ ...isTwo, op: '!eq', multiple })).toBe(expected);
    },
  );

  it('all holds when every item matches; any is the default', () => {
    expect(holds({ op: 'gt', args: ['{item}', 0], loop: items, multiple: 'all' })).toBe(true);
    expect(holds({ op: 'eq', args: ['{item}', 3], loop: items })).toBe(true);
  });

  it('loops over an interpolated list, and an empty list means no loop', () => {
    const inventory = { interfaces: [{ name: 'eth0' }, { name: 'ib0' }] };
    expect(
      holds(
        { op: 'contains', args: ['{item[name]}', '^ib'], loop: '{inventory[interfaces]}' },
        { inventory },
      ),
    ).toBe(true);
    expect(holds({ op: 'is-none', args: ['{item}'], loop: [] })).toBe(true);
  });

  it('a loop that is not a list is a rule error', () => {
    expect(
      failure(
        { op: 'is-none', args: ['{item}'], loop: '{inventory[x]}' },
        { inventory: { x: 'str' } },
      ),
    ).toMatch(/loop must give a list or a dict, got string/);
  });
});
