import { formatStatePosition, isAtOrAfter, parseStatePosition } from './state-position';

describe('State-After positions', () => {
  it('reads back what it writes, and refuses anything else', () => {
    const position = { txId: '18446744073709551615', position: '7' };
    expect(parseStatePosition(formatStatePosition(position))).toEqual(position);
    for (const bad of [
      undefined,
      '',
      '12',
      '12.',
      '.3',
      '1.2.3',
      '-1.2',
      '1.x',
      '1'.repeat(21) + '.1',
    ])
      expect(parseStatePosition(bad)).toBeUndefined();
  });

  it('orders by transaction, then position, as numbers rather than text', () => {
    const at = (txId: string, position: string) => ({ txId, position });
    expect(isAtOrAfter(at('10', '1'), at('9', '500'))).toBe(true);
    expect(isAtOrAfter(at('9', '500'), at('10', '1'))).toBe(false);
    expect(isAtOrAfter(at('10', '12'), at('10', '9'))).toBe(true);
    expect(isAtOrAfter(at('10', '9'), at('10', '9'))).toBe(true);
    expect(isAtOrAfter(at('10', '9'), at('10', '12'))).toBe(false);
  });
});
