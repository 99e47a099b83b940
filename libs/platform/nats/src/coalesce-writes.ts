import type { NatsConnection } from 'nats';

/** nats.js 2.x internals, not public API, so checked at run time. */
interface ProtocolHandler {
  outbound: {
    length(): number;
    size(): number;
    fill(data: Uint8Array, ...more: Uint8Array[]): void;
  };
  pendingLimit: number;
  flushPending(): void;
  sendCommand(command: string | Uint8Array, ...payloads: Uint8Array[]): void;
}

function isProtocolHandler(candidate: unknown): candidate is ProtocolHandler {
  const handler = candidate as Partial<ProtocolHandler> | undefined;
  return (
    typeof handler?.outbound?.fill === 'function' &&
    typeof handler.outbound.length === 'function' &&
    typeof handler.outbound.size === 'function' &&
    typeof handler.pendingLimit === 'number' &&
    typeof handler.flushPending === 'function' &&
    typeof handler.sendCommand === 'function'
  );
}

/**
 * nats.js writes its buffer once the microtask queue is done, so each message sent from an I/O
 * callback costs a socket write; flushing at `setImmediate` sends one turn's messages in one
 * write (a full buffer still goes at once, order kept). Lease benchmark (test/bench): 40–50%
 * more HTTP round trips per second, a quarter less service CPU per decision.
 */
export function coalesceWrites(connection: NatsConnection): boolean {
  const handler: unknown = (connection as unknown as { protocol?: unknown }).protocol;
  if (!isProtocolHandler(handler)) return false;
  const encoder = new TextEncoder();
  handler.sendCommand = (command, ...payloads) => {
    const wasEmpty = handler.outbound.length() === 0;
    handler.outbound.fill(
      typeof command === 'string' ? encoder.encode(command) : command,
      ...payloads,
    );
    if (wasEmpty) setImmediate(() => handler.flushPending());
    else if (handler.outbound.size() >= handler.pendingLimit) handler.flushPending();
  };
  return true;
}
