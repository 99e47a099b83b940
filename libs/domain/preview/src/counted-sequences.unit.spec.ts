import { sequenceRuns } from './counted-sequences';

describe('sequenceRuns', () => {
  it('covers every sequence once, in as few runs as there are gaps', () => {
    expect(sequenceRuns([3, 4, 5, 9, 11, 12])).toEqual([
      [3, 5],
      [9, 9],
      [11, 12],
    ]);
  });

  it('folds a repeated sequence into its run, and has no run for no sequence', () => {
    expect(sequenceRuns([7, 7, 8, 8])).toEqual([[7, 8]]);
    expect(sequenceRuns([])).toEqual([]);
  });
});
