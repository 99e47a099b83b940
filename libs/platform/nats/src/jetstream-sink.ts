import { Cursor, RelaySink, StoredEvent, isAfter } from '@rollout/platform/event-store';
import type { JetStreamClient, JetStreamManager, MsgHdrs } from 'nats';
import { headers as natsHeaders } from 'nats';

export interface RelayMessage {
  subject: string;
  payload: Uint8Array;
}

export interface JetStreamSinkOptions {
  /**
   * The stream, as named on the server: at start the relay resumes after its last event when
   * that is ahead of the checkpoint, so a lost checkpoint never republishes past the duplicate
   * window. Only valid when this relay is the stream's one publisher.
   */
  stream?: string;
  toMessage(event: StoredEvent): RelayMessage;
}

/**
 * `Nats-Msg-Id` = event id lets JetStream's duplicate window drop republished events; the
 * `Event-Tx`/`Event-Position` headers recover a lost checkpoint.
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
   * Pipelined: each publish expects the one before as the stream's last message, so after a
   * failure every later one fails too and nothing lands out of order. JetStream drops a
   * duplicate before checking that, so a restart after a crash works too.
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

export function eventHeaders(event: StoredEvent): MsgHdrs {
  const headers = cursorHeaders(event);
  headers.set('Event-Type', event.type);
  return headers;
}

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
