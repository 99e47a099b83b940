import { percent, shareText } from './evidence';

describe('the report’s evidence in words', () => {
  it('says a share as counts and a whole percentage', () => {
    expect(shareText(806, 6058, 'events')).toBe('806 of 6,058 events, 13%');
    expect(percent(1, 1000)).toBe('<1%');
    expect(percent(999, 1000)).toBe('>99%');
    expect(percent(0, 0)).toBe('0%');
    expect(percent(5, 5)).toBe('100%');
  });
});
