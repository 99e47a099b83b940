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

/** A key's version (0: none) and its last revision (0: no entry). */
interface Held {
  version: number;
  revision: number;
}

/**
 * Writes each aggregate's current state into the EXPERIMENT_STATE KV bucket (see experiment.v1):
 * its last event as the value, or a delete marker once it is deleted or committed. A key never
 * goes back: a write is compare-and-set on the key's last revision and skipped when the key
 * already holds that version or a later one, so a batch written again after a crash, or by a
 * replica that lost its lock meanwhile, changes nothing. The bucket is its own checkpoint: the
 * relay resumes from its position key, and from the first event when the key is absent (a new
 * bucket, or an upgrade from before the bucket existed), which fills it from the event store.
 */
export class StateBucketSink implements RelaySink {
  /** Where the bucket's position key stands, as this process last read or wrote it, and its revision. */
  private position?: Cursor;
  private positionRevision = 0;
  /** The last event this sink holds in the bucket. */
  private reached: Cursor = START;
  /**
   * What keys hold, as this process last wrote or read them: a write needs the key's revision,
   * and reading it for every write would double the relay's cost. A compare-and-set that fails
   * says an entry is out of date (another replica's relay wrote the key): it is read again.
   */
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
    // Only the last event of each aggregate in the batch is current state (in commit order).
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
        // Compare-and-set too: a bucket deleted and created again meanwhile fails it, and the
        // relay then starts again from the position the new bucket has (none: a full refill).
        this.positionRevision = await this.bucket.put(STATE_POSITION_KEY, Empty, {
          headers: cursorHeaders(this.reached),
          expectRevision: this.positionRevision,
        });
        this.position = this.reached;
      }
      return { published: events.length };
    } catch (error) {
      // Written again from the position key, which no write above has moved past, and with
      // every key read again: a failed compare-and-set means the cache is wrong.
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

  /** What a key holds, read from the bucket (for a key this process has not written yet). */
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
