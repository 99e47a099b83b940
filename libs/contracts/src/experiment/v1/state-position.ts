/**
 * Read your own writes across services (since 1.7.0): the evaluator sees a command only once the
 * relay has written it to EXPERIMENT_STATE, so a read sends the log's position in `State-After`
 * and the answering service waits a bounded time to apply up to there, else UNAVAILABLE.
 */
export type GetStatePositionRequest = Record<string, never>;

/** The last committed event; the log is relayed in this order (transaction id, then position). */
export interface StatePosition {
  /**
   * 64 bits, in decimal.
   * @pattern ^[0-9]{1,20}$
   */
  txId: string;
  /**
   * 64 bits, in decimal.
   * @pattern ^[0-9]{1,20}$
   */
  position: string;
}

/** `<txId>.<position>` */
export const STATE_AFTER_HEADER = 'State-After';

export const STATE_START: StatePosition = { txId: '0', position: '0' };

const DIGITS = /^[0-9]{1,20}$/;

export const formatStatePosition = ({ txId, position }: StatePosition): string =>
  `${txId}.${position}`;

export function parseStatePosition(text: string | undefined | null): StatePosition | undefined {
  const [txId, position, ...rest] = (text ?? '').trim().split('.');
  if (rest.length > 0 || !DIGITS.test(txId ?? '') || !DIGITS.test(position ?? '')) return undefined;
  return { txId, position };
}

/** Compared as 64-bit numbers, not as text. */
export function isAtOrAfter(a: StatePosition, b: StatePosition): boolean {
  const [ta, tb] = [BigInt(a.txId), BigInt(b.txId)];
  return ta !== tb ? ta > tb : BigInt(a.position) >= BigInt(b.position);
}
