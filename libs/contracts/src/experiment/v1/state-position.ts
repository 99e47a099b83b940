/**
 * Read your own writes across services (since experiment.v1 1.7.0). A command of the
 * experiment-service is done once its events are committed, but the services that follow
 * EXPERIMENT_STATE (the evaluator) see it only once the state relay has written it there. A
 * read that must see every change already answered asks the experiment-service where its event
 * log stands (`experiment.v1.state.position`), and sends that position in the `State-After`
 * header of its request; the service that answers waits, for a bounded time, until it has
 * applied the bucket up to there (every entry carries its event's `Event-Tx`/`Event-Position`,
 * and the relay's position key the last one written), and otherwise answers UNAVAILABLE.
 */

/** Asks where the event log stands; no field. */
export type GetStatePositionRequest = Record<string, never>;

/**
 * A place in the experiment-service's event log: the last committed event when answered. The
 * log is relayed to EXPERIMENT_STATE in this order (transaction id, then position).
 */
export interface StatePosition {
  /**
   * The event's transaction id (64 bits, in decimal).
   * @pattern ^[0-9]{1,20}$
   */
  txId: string;
  /**
   * The event's position in the log (64 bits, in decimal).
   * @pattern ^[0-9]{1,20}$
   */
  position: string;
}

/** The header of a request that must see the state up to a position: `<txId>.<position>`. */
export const STATE_AFTER_HEADER = 'State-After';

/** The log before its first event: every reader stands at or after it. */
export const STATE_START: StatePosition = { txId: '0', position: '0' };

const DIGITS = /^[0-9]{1,20}$/;

export const formatStatePosition = ({ txId, position }: StatePosition): string =>
  `${txId}.${position}`;

/** The position a `State-After` header names; undefined when it is absent or malformed. */
export function parseStatePosition(text: string | undefined | null): StatePosition | undefined {
  const [txId, position, ...rest] = (text ?? '').trim().split('.');
  if (rest.length > 0 || !DIGITS.test(txId ?? '') || !DIGITS.test(position ?? '')) return undefined;
  return { txId, position };
}

/** Whether `a` is at `b` or after it in the log (compared as 64-bit numbers, not as text). */
export function isAtOrAfter(a: StatePosition, b: StatePosition): boolean {
  const [ta, tb] = [BigInt(a.txId), BigInt(b.txId)];
  return ta !== tb ? ta > tb : BigInt(a.position) >= BigInt(b.position);
}
