import { MsgHdrs, NatsConnection, NatsError, headers as natsHeaders } from 'nats';

export interface StoredEntry {
  seq: number;
  subject: string;
  storedMs: number;
  /** The direct get's `Nats-*` headers included. */
  headers: MsgHdrs;
  data: Uint8Array;
}

/**
 * Direct gets (`allow_direct`, nats-server 2.9) so a reader needs no consumer: its user creates
 * none (docs/bus-security.md). The caller keeps the position as a stream sequence.
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

  async next(seq: number, filter: string): Promise<StoredEntry | undefined> {
    return this.get({ seq: Math.max(1, seq), next_by_subj: filter });
  }

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
