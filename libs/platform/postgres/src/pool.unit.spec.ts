import { MAX_PREPARED_STATEMENTS, prepared } from './pool';

describe('prepared statements', () => {
  it('names each text once, the same on every call, and leaves texts beyond the bound unnamed', () => {
    const first = prepared('SELECT 1 WHERE $1::int > 0', [1]);
    expect(first).toEqual({
      name: expect.stringMatching(/^rollout_\d+$/),
      text: 'SELECT 1 WHERE $1::int > 0',
      values: [1],
    });
    expect(prepared('SELECT 1 WHERE $1::int > 0', [2])).toEqual({ ...first, values: [2] });
    expect(prepared('SELECT 2 WHERE $1::int > 0', [1]).name).not.toBe(first.name);

    for (let i = 0; i < MAX_PREPARED_STATEMENTS; i++) prepared(`SELECT ${i + 3}`, []);
    expect(prepared('SELECT -1', [])).toEqual({ text: 'SELECT -1', values: [] });
    expect(prepared('SELECT 1 WHERE $1::int > 0', [3]).name).toBe(first.name);
  });
});
