import { STATE_POSITION_KEY, STATE_VERSION_HEADER } from '@rollout/contracts';
import { Cursor, RelaySink, START, StoredEvent, isAfter } from '@rollout/platform/event-store';
import {
  KvWriter,
  isKvRevisionConflict,
  cursorHeaders,
  cursorOfHeaders,
  eventHeaders,
} from '@rollout/platform/nats';
import { Empty, JSONCodec } from 'nats';
import { isEnd, publishedEvent, stateKey } from './published-events';

const codec = JSONCodec();
/** Keys whose version and revision are remembered (about 100 bytes each). */
const HELD_KEYS = 100_000;

interface Held {
  version: number;
  revision: number;
}

/**
 * A key never goes back: a write is compare-and-set on the key's last revision and skipped when
 * the key holds that version or later, so a batch rewritten after a crash, or by a replica that
 * lost its lock, changes nothing. Without a position key (new bucket) the relay refills from the
 * first event.
 */
export class StateBucketSink implements RelaySink {
  private position?: Cursor;
  private positionRevision = 0;
  private reached: Cursor = START;
  /** Reading a key's revision for every write would double the relay's cost; a failed compare-and-set re-reads it. */
  private readonly held = new Map<string, Held>();

  constructor(private readonly bucket: KvWriter) {}

  async resumeFrom(): Promise<Cursor> {
    const entry = await this.bucket.last(STATE_POSITION_KEY);
    this.position = cursorOfHeaders(entry?.headers);
    this.positionRevision = entry?.revision ?? 0;
    this.reached = this.position ?? START;
    return this.reached;
  }

  async publish(
    events: StoredEvent[],
    caughtUp: boolean,
  ): Promise<{ published: number; error?: unknown }> {
    const latest = new Map<string, StoredEvent>();
    for (const event of events) {
      latest.delete(event.streamId);
      latest.set(event.streamId, event);
    }
    try {
      const entries = [...latest.values()].map((event) => ({ event, key: stateKey(event) }));
      const held = await Promise.all(
        entries.map(({ key }) => this.held.get(key) ?? this.read(key)),
      );
      // Pipelined, in commit order: one connection's publishes reach the stream in order.
      await Promise.all(entries.map(({ event, key }, i) => this.write(key, event, held[i])));
      const last = events[events.length - 1];
      if (last) this.reached = { txId: last.txId, position: last.position };
      if (caughtUp && (!this.position || isAfter(this.reached, this.position))) {
        // Compare-and-set: a bucket recreated meanwhile fails it, and the relay restarts from its position (a full refill).
        this.positionRevision = await this.bucket.put(STATE_POSITION_KEY, Empty, {
          headers: cursorHeaders(this.reached),
          expectRevision: this.positionRevision,
        });
        this.position = this.reached;
      }
      return { published: events.length };
    } catch (error) {
      // A failed compare-and-set means the cache is wrong.
      this.held.clear();
      return { published: 0, error };
    }
  }

  private async write(key: string, event: StoredEvent, held: Held, again = true): Promise<void> {
    if (held.version >= event.version) return;
    const headers = eventHeaders(event);
    headers.set(STATE_VERSION_HEADER, String(event.version));
    const write = { headers, expectRevision: held.revision };
    try {
      const revision = isEnd(event)
        ? await this.bucket.delete(key, write)
        : await this.bucket.put(key, codec.encode(publishedEvent(event)), write);
      this.remember(key, { version: event.version, revision });
    } catch (error) {
      if (!again || !isKvRevisionConflict(error)) throw error;
      // The relay of another replica wrote the key since this one did: read it, and try again.
      await this.write(key, event, await this.read(key), false);
    }
  }

  private async read(key: string): Promise<Held> {
    const entry = await this.bucket.last(key);
    const held = entry
      ? { version: Number(entry.headers?.get(STATE_VERSION_HEADER)) || 0, revision: entry.revision }
      : { version: 0, revision: 0 };
    this.remember(key, held);
    return held;
  }

  private remember(key: string, held: Held): void {
    this.held.delete(key);
    this.held.set(key, held);
    // The least recently written go first (a Map iterates in insertion order).
    if (this.held.size > HELD_KEYS) this.held.delete(this.held.keys().next().value as string);
  }
}
