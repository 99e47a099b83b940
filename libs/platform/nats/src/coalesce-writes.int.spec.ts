import { TEST_NATS_URL, eventually, uniqueName } from '@rollout/testing/kit';
import { NatsConnection, StringCodec, connect } from 'nats';
import { coalesceWrites } from './coalesce-writes';

const codec = StringCodec();
const MESSAGES = 200;

/** Publishes message i from the i-th of `MESSAGES` callbacks of one event-loop turn. */
const publishFromSeparateCallbacks = (connection: NatsConnection, subject: string) =>
  Promise.all(
    Array.from(
      { length: MESSAGES },
      (_, i) =>
        new Promise<void>((resolve) =>
          setImmediate(() => resolve(connection.publish(subject, codec.encode(String(i))))),
        ),
    ),
  );

/** Counts the writes on the client's socket (nats.js internals, for this measurement only). */
function countWrites(connection: NatsConnection): () => number {
  const socket = (
    connection as unknown as {
      protocol: { transport: { socket: { write: (...args: unknown[]) => boolean } } };
    }
  ).protocol.transport.socket;
  const write = socket.write.bind(socket);
  let writes = 0;
  socket.write = (...args: unknown[]) => {
    writes++;
    return write(...args);
  };
  return () => writes;
}

describe('coalesced NATS writes (real server)', () => {
  let plain: NatsConnection;
  let coalesced: NatsConnection;
  let receiver: NatsConnection;
  let applied: boolean;

  beforeAll(async () => {
    [plain, coalesced, receiver] = await Promise.all(
      [1, 2, 3].map(() => connect({ servers: TEST_NATS_URL })),
    );
    applied = coalesceWrites(coalesced);
  });

  afterAll(async () => {
    await Promise.all([plain, coalesced, receiver].map((connection) => connection?.close()));
  });

  it('applies to the nats.js in use', () => {
    expect(applied).toBe(true);
  });

  it('sends what many callbacks of one event-loop turn publish in a few writes, and every message arrives in order', async () => {
    const runs = [];
    for (const connection of [plain, coalesced]) {
      const subject = uniqueName('coalesce.');
      const received: string[] = [];
      receiver.subscribe(subject, {
        max: MESSAGES,
        callback: (_error, message) => received.push(codec.decode(message.data)),
      });
      await receiver.flush();
      const writes = countWrites(connection);
      await publishFromSeparateCallbacks(connection, subject);
      await connection.flush();
      await eventually(() => (received.length === MESSAGES ? true : undefined), {
        what: `${MESSAGES} messages`,
      });
      runs.push({ writes: writes(), received });
    }
    const [withoutCoalescing, withCoalescing] = runs;
    expect(withoutCoalescing.writes).toBeGreaterThanOrEqual(MESSAGES);
    expect(withCoalescing.writes).toBeLessThanOrEqual(5);
    expect(withCoalescing.received).toEqual(Array.from({ length: MESSAGES }, (_, i) => String(i)));
  });
});
