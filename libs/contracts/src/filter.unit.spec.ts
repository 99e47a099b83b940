import { filterTerms } from './filter';

const read = (filter: string, keyword: 'AND' | 'OR' = 'AND', anyCase = false) => [
  ...filterTerms(filter, { keyword, anyCase }),
];

describe('AIP-160 filter terms', () => {
  it('reads field op value terms joined by the keyword, values bare or quoted', () => {
    expect(read('a = 1 AND b.c!="x \\"y\\" \\\\" AND d:10.0.0.0/8 AND e>=2')).toEqual([
      { field: 'a', op: '=', value: '1', text: 'a = 1' },
      { field: 'b.c', op: '!=', value: 'x "y" \\', text: 'b.c!="x \\"y\\" \\\\"' },
      { field: 'd', op: ':', value: '10.0.0.0/8', text: 'd:10.0.0.0/8' },
      { field: 'e', op: '>=', value: '2', text: 'e>=2' },
    ]);
    expect(read('a = 1 OR a = 2', 'OR')).toHaveLength(2);
    expect(read('a = 1 or a = 2', 'OR', true)).toHaveLength(2);
  });

  it('stops at the first thing wrong, saying what and where, and quoting the term', () => {
    expect(read('a = 1 or a = 2', 'OR').at(-1)).toEqual({
      error: 'expected OR at position 7 (terms are joined by OR)',
      text: 'a = 1 or a = 2',
    });
    expect(read('a = 1 AND = 2').at(-1)).toEqual({
      error: 'expected a field name at position 11',
      text: '= 2',
    });
    expect(read('a 1')).toEqual([
      { error: 'expected an operator (=, !=, <, <=, >, >=) after a', text: 'a 1' },
    ]);
    expect(read('a = "1')).toEqual([{ error: 'unterminated quoted value for a', text: 'a = "1' }]);
    expect(read('a =')).toEqual([{ error: 'expected a value after a =', text: 'a =' }]);
  });

  it('reads lazily, so a list meets the first term before a later syntax error', () => {
    const terms = filterTerms('a = 1 AND b = "open', { keyword: 'AND' });
    expect(terms.next().value).toEqual({ field: 'a', op: '=', value: '1', text: 'a = 1' });
    expect(terms.next().value).toEqual({
      error: 'unterminated quoted value for b',
      text: 'b = "open',
    });
    expect(terms.next().done).toBe(true);
  });
});
