import { STATE_POSITION_KEY, STATE_VERSION_HEADER } from '@rollout/contracts';
import { Cursor, RelaySink, START, StoredEvent, cursorOfHeaders, eventHeaders, isAfter } from '@rollout/event-store';
import { Empty, JSONCodec, JetStreamClient, JetStreamManager, NatsError, PubAck, StoredMsg, headers as natsHeaders } from 'nats';
import { isEnd, publishedEvent, stateKey } from './published-events';

const NO_MESSAGE_FOUND = 10037;
const codec = JSONCodec();

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

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    /** The bucket's name on the server (namespaced). */
    private readonly bucket: string,
  ) {}

  async resumeFrom(): Promise<Cursor> {
    const entry = await this.last(STATE_POSITION_KEY);
    this.position = cursorOfHeaders(entry?.header);
    this.positionRevision = entry?.seq ?? 0;
    this.reached = this.position ?? START;
    return this.reached;
  }

  async publish(events: StoredEvent[], caughtUp: boolean): Promise<{ published: number; error?: unknown }> {
    // Only the last event of each aggregate in the batch is current state (in commit order).
    const latest = new Map<string, StoredEvent>();
    for (const event of events) {
      latest.delete(event.streamId);
      latest.set(event.streamId, event);
    }
    try {
      const entries = [...latest.values()];
      const held = await Promise.all(entries.map((event) => this.last(stateKey(event))));
      // Pipelined, in commit order: one connection's publishes reach the stream in order.
      await Promise.all(entries.map((event, i) => this.write(event, held[i])));
      const last = events[events.length - 1];
      if (last) this.reached = { txId: last.txId, position: last.position };
      if (caughtUp && (!this.position || isAfter(this.reached, this.position))) {
        // Compare-and-set too: a bucket deleted and created again meanwhile fails it, and the
        // relay then starts again from the position the new bucket has (none: a full refill).
        const ack = await this.js.publish(this.subject(STATE_POSITION_KEY), Empty, {
          headers: cursorHeaders(this.reached),
          expect: { lastSubjectSequence: this.positionRevision },
        });
        this.position = this.reached;
        this.positionRevision = ack.seq;
      }
      return { published: events.length };
    } catch (error) {
      // Written again from the position key, which no write above has moved past.
      return { published: 0, error };
    }
  }

  private write(event: StoredEvent, held: StoredMsg | undefined): Promise<PubAck> | undefined {
    if (held && Number(held.header?.get(STATE_VERSION_HEADER)) >= event.version) return undefined;
    const headers = eventHeaders(event);
    headers.set(STATE_VERSION_HEADER, String(event.version));
    const end = isEnd(event);
    if (end) headers.set('KV-Operation', 'DEL');
    return this.js.publish(this.subject(stateKey(event)), end ? Empty : codec.encode(publishedEvent(event)), {
      headers,
      expect: { lastSubjectSequence: held?.seq ?? 0 },
    });
  }

  /** The key's last entry (a value or a delete marker), or undefined when it has none. */
  private async last(key: string): Promise<StoredMsg | undefined> {
    try {
      return await this.jsm.streams.getMessage(`KV_${this.bucket}`, { last_by_subj: this.subject(key) });
    } catch (error) {
      if (error instanceof NatsError && error.api_error?.err_code === NO_MESSAGE_FOUND) return undefined;
      throw error;
    }
  }

  private subject(key: string): string {
    return `$KV.${this.bucket}.${key}`;
  }
}

function cursorHeaders(cursor: Cursor) {
  const headers = natsHeaders();
  headers.set('Event-Tx', cursor.txId);
  headers.set('Event-Position', cursor.position);
  return headers;
}
