import { seenSpan } from './flow-text';

describe('when a flow was seen, in words', () => {
  it('shows when a flow was seen without wrapping: one day short, several days with both', () => {
    expect(seenSpan('2026-11-28T21:50:27.120Z', '2026-11-28T21:51:10Z')).toBe(
      '11-28 21:50:27–21:51:10',
    );
    expect(seenSpan('2026-11-28T21:50:27Z', '2026-11-28T21:50:27Z')).toBe('11-28 21:50:27');
    expect(seenSpan('2026-11-28T21:50:27Z', '2026-11-29T02:10:00Z')).toBe(
      '11-28 21:50–11-29 02:10',
    );
  });
});
