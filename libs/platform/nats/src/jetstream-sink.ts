import { Cursor, RelaySink, StoredEvent, isAfter } from '@rollout/platform/event-store';
import type { JetStreamClient, JetStreamManager, MsgHdrs } from 'nats';
import { headers as natsHeaders } from 'nats';

/** One event as a stream message. */
export interface RelayMessage {
  subject: string;
  payload: Uint8Array;
}

export interface JetStreamSinkOptions {
  /**
   * The stream the messages land in (as named on the server). At start the relay resumes
   * after the last event found there when that is ahead of its checkpoint, so a checkpoint
   * lost to a crash never republishes, even after the duplicate window. Only valid when this
   * relay is the stream's one publisher.
   */
  stream?: string;
  toMessage(event: StoredEvent): RelayMessage;
}

/**
 * A stream sink: each event one message, `Nats-Msg-Id` = event id, so JetStream's duplicate
 * window drops what a restarted relay publishes again, and `Event-Tx`/`Event-Position` headers
 * from which a lost checkpoint is recovered.
 */
export class JetStreamSink implements RelaySink {
  constructor(
    private readonly js: JetStreamClient,
    private readonly options: JetStreamSinkOptions,
    private readonly jsm?: JetStreamManager,
  ) {}

  async resumeFrom(checkpoint: Cursor): Promise<Cursor> {
    const published = await this.lastPublished();
    return published && isAfter(published, checkpoint) ? published : checkpoint;
  }

  /**
   * Publishes without waiting for each acknowledgement in turn: the
   * first alone, then every other one at once, each expecting the one before it as the
   * stream's last message (`Nats-Expected-Last-Msg-Id`). So when one fails, every one after
   * it fails too and nothing lands out of order. JetStream drops a republished event as a
   * duplicate before it checks that expectation, so starting again after a crash works too.
   * Returns how many of the first events were stored, and the first failure.
   */
  async publish(events: StoredEvent[]): Promise<{ published: number; error?: unknown }> {
    const publish = (event: StoredEvent, previous?: StoredEvent) => {
      const message = this.options.toMessage(event);
      return this.js.publish(message.subject, message.payload, {
        msgID: event.eventId,
        headers: eventHeaders(event),
        ...(previous ? { expect: { lastMsgID: previous.eventId } } : {}),
      });
    };
    if (events.length === 0) return { published: 0 };
    try {
      await publish(events[0]);
    } catch (error) {
      return { published: 0, error };
    }
    const rest = await Promise.allSettled(
      events.slice(1).map((event, i) => publish(event, events[i])),
    );
    const failed = rest.findIndex((result) => result.status === 'rejected');
    if (failed === -1) return { published: events.length };
    return { published: failed + 1, error: (rest[failed] as PromiseRejectedResult).reason };
  }

  /** The cursor of the last event in the stream, or undefined when it is empty or unknown. */
  private async lastPublished(): Promise<Cursor | undefined> {
    if (!this.jsm || !this.options.stream) return undefined;
    const info = await this.jsm.streams.info(this.options.stream);
    if (info.state.last_seq === 0 || info.state.messages === 0) return undefined;
    const message = await this.jsm.streams.getMessage(this.options.stream, {
      seq: info.state.last_seq,
    });
    return cursorOfHeaders(message.header);
  }
}

/** `Event-Type`, and the event's place in the global log: `Event-Tx`, `Event-Position`. */
export function eventHeaders(event: StoredEvent): MsgHdrs {
  const headers = cursorHeaders(event);
  headers.set('Event-Type', event.type);
  return headers;
}

/** A place in the global log as headers (`Event-Tx`, `Event-Position`); cursorOfHeaders reads it back. */
export function cursorHeaders(cursor: Cursor): MsgHdrs {
  const headers = natsHeaders();
  headers.set('Event-Tx', cursor.txId);
  headers.set('Event-Position', cursor.position);
  return headers;
}

export function cursorOfHeaders(headers: MsgHdrs | undefined): Cursor | undefined {
  const txId = headers?.get('Event-Tx');
  const position = headers?.get('Event-Position');
  return txId && position ? { txId, position } : undefined;
}
