import { MsgHdrs, NatsConnection, NatsError, headers as natsHeaders } from 'nats';

/** A message of a stream as a direct get returns it. */
export interface StoredEntry {
  seq: number;
  subject: string;
  /** When the stream stored it, in ms. */
  storedMs: number;
  /** The message's own headers (the direct get's `Nats-*` ones included). */
  headers: MsgHdrs;
  data: Uint8Array;
}

/**
 * Reads a stream message by message with direct gets (`$JS.API.DIRECT.GET.<stream>`, a stream
 * with `allow_direct`, nats-server 2.9), so that a reader needs no consumer of its own: its
 * user creates, updates and deletes none (docs/bus-security.md). The reader keeps its position
 * itself, as a stream sequence.
 */
export class DirectReader {
  private readonly subject: string;

  constructor(
    private readonly connection: NatsConnection,
    readonly stream: string,
    private readonly timeoutMs = 5_000,
  ) {
    this.subject = `$JS.API.DIRECT.GET.${stream}`;
  }

  /** The first message at or after `seq` on a subject `filter` matches; undefined when there is none yet. */
  async next(seq: number, filter: string): Promise<StoredEntry | undefined> {
    return this.get({ seq: Math.max(1, seq), next_by_subj: filter });
  }

  /** The message with sequence `seq`, if the stream still holds it. */
  async at(seq: number): Promise<StoredEntry | undefined> {
    return this.get({ seq });
  }

  private async get(query: Record<string, unknown>): Promise<StoredEntry | undefined> {
    const reply = await this.connection.request(this.subject, JSON.stringify(query), {
      timeout: this.timeoutMs,
    });
    const headers = reply.headers ?? natsHeaders();
    if (headers.hasError) {
      if (headers.code === 404) return undefined;
      throw new NatsError(
        `direct get on ${this.stream}: ${headers.code} ${headers.description}`,
        String(headers.code),
      );
    }
    const seqHeader = headers.get('Nats-Sequence');
    if (!seqHeader) throw new Error(`direct get on ${this.stream}: a reply without Nats-Sequence`);
    return {
      seq: Number(seqHeader),
      subject: headers.get('Nats-Subject'),
      storedMs: Date.parse(headers.get('Nats-Time-Stamp')),
      headers,
      data: reply.data,
    };
  }
}
