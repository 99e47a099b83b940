import {
  Empty,
  JetStreamClient,
  JetStreamManager,
  MsgHdrs,
  NatsConnection,
  NatsError,
  Subscription,
  headers as natsHeaders,
} from 'nats';
import { DirectReader } from './direct-reader';
import { kvAllKeys, kvKeyOf, kvStream, kvSubject } from './kv-subjects';

/** The header by which NATS KV (nats.js, `nats kv del`) marks an entry as no value. */
const KV_OPERATION_HEADER = 'KV-Operation';

export type KvOperation = 'PUT' | 'DEL' | 'PURGE';

/** One entry of a bucket, a value or a deletion marker, as it sits in the bucket's stream. */
export interface KvEntry {
  key: string;
  /** The entry's stream sequence: the revision a compare-and-set expects. */
  revision: number;
  operation: KvOperation;
  headers?: MsgHdrs;
  value: Uint8Array;
}

export function kvOperationOf(headers: MsgHdrs | undefined): KvOperation {
  const operation = headers?.get(KV_OPERATION_HEADER);
  return operation === 'DEL' || operation === 'PURGE' ? operation : 'PUT';
}

export const isKvDeletion = (operation: KvOperation): boolean => operation !== 'PUT';

/** `headers` (new ones when absent) marking a write as the key's deletion, as `nats kv del` writes it. */
export function kvDeletionHeaders(headers: MsgHdrs = natsHeaders()): MsgHdrs {
  headers.set(KV_OPERATION_HEADER, 'DEL');
  return headers;
}

const NO_MESSAGE_FOUND = 10037;
const WRONG_LAST_SEQUENCE = 10071;

/** A compare-and-set that found the key at another revision than the one expected. */
export const isKvRevisionConflict = (error: unknown): boolean =>
  error instanceof NatsError && error.api_error?.err_code === WRONG_LAST_SEQUENCE;

export interface KvWrite {
  headers?: MsgHdrs;
  /** The key's revision the write expects (0: no entry yet); it fails with a revision conflict otherwise. */
  expectRevision: number;
}

/**
 * Writes a bucket through JetStream: puts and deletions are compare-and-set on the key's
 * revision, and reads are of the key's last entry, deletions included. It needs publish on the
 * key's subjects and a direct get of the bucket's stream, never a consumer.
 */
export class KvWriter {
  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    /** The bucket's name on the server (namespaced). */
    private readonly bucket: string,
  ) {}

  /** Resolves with the entry's revision. */
  async put(key: string, value: Uint8Array, write: KvWrite): Promise<number> {
    return this.publish(key, value, write.headers ?? natsHeaders(), write.expectRevision);
  }

  async delete(key: string, write: KvWrite): Promise<number> {
    return this.publish(key, Empty, kvDeletionHeaders(write.headers), write.expectRevision);
  }

  async last(key: string): Promise<KvEntry | undefined> {
    try {
      const stored = await this.jsm.streams.getMessage(kvStream(this.bucket), {
        last_by_subj: kvSubject(this.bucket, key),
      });
      return {
        key,
        revision: stored.seq,
        operation: kvOperationOf(stored.header),
        headers: stored.header,
        value: stored.data,
      };
    } catch (error) {
      if (error instanceof NatsError && error.api_error?.err_code === NO_MESSAGE_FOUND)
        return undefined;
      throw error;
    }
  }

  private async publish(key: string, value: Uint8Array, headers: MsgHdrs, revision: number) {
    const ack = await this.js.publish(kvSubject(this.bucket, key), value, {
      headers,
      expect: { lastSubjectSequence: revision },
    });
    return ack.seq;
  }
}

/**
 * Follows a bucket in stream order with direct gets, so that its reader needs no consumer of
 * its own: the next entry after a revision, whichever key it is on.
 */
export class KvFollower {
  private readonly reader: DirectReader;
  private readonly allKeys: string;

  constructor(
    private readonly connection: NatsConnection,
    /** The bucket's name on the server (namespaced). */
    readonly bucket: string,
  ) {
    this.reader = new DirectReader(connection, kvStream(bucket));
    this.allKeys = kvAllKeys(bucket);
  }

  async next(afterRevision: number): Promise<KvEntry | undefined> {
    const entry = await this.reader.next(afterRevision + 1, this.allKeys);
    return (
      entry && {
        key: kvKeyOf(this.bucket, entry.subject),
        revision: entry.seq,
        operation: kvOperationOf(entry.headers),
        headers: entry.headers,
        value: entry.data,
      }
    );
  }

  /** The revision of the bucket's last entry, as its stream's leader says. */
  async lastRevision(): Promise<number> {
    const jsm = await this.connection.jetstreamManager({ checkAPI: false });
    return (await jsm.streams.info(this.reader.stream)).state.last_seq;
  }

  /** Calls `wake` when any key is written: a nudge only, since a notice may be lost. */
  onWrite(wake: () => void): Subscription {
    return this.connection.subscribe(this.allKeys, { callback: () => wake() });
  }
}
