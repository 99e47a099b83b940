import { compileSafeRegex, regexTest } from './safe-regex';

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
    // Ironic matches str(value): null is "None".
    expect(regexTest(null, '.*', false)).toBe(true);
    expect(regexTest(null, 'None', true)).toBe(true);
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
