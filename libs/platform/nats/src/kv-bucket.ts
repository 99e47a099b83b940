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

const KV_OPERATION_HEADER = 'KV-Operation';

export type KvOperation = 'PUT' | 'DEL' | 'PURGE';

export interface KvEntry {
  key: string;
  /** The revision a compare-and-set expects. */
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

/** As `nats kv del` writes it. */
export function kvDeletionHeaders(headers: MsgHdrs = natsHeaders()): MsgHdrs {
  headers.set(KV_OPERATION_HEADER, 'DEL');
  return headers;
}

const NO_MESSAGE_FOUND = 10037;
const WRONG_LAST_SEQUENCE = 10071;

export const isKvRevisionConflict = (error: unknown): boolean =>
  error instanceof NatsError && error.api_error?.err_code === WRONG_LAST_SEQUENCE;

export interface KvWrite {
  headers?: MsgHdrs;
  /** 0: no entry yet. */
  expectRevision: number;
}

/** Needs publish on the key's subjects and a direct get of the bucket's stream, never a consumer. */
export class KvWriter {
  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    /** Namespaced. */
    private readonly bucket: string,
  ) {}

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

/** Follows a bucket in stream order with direct gets, so its reader needs no consumer of its own. */
export class KvFollower {
  private readonly reader: DirectReader;
  private readonly allKeys: string;

  constructor(
    private readonly connection: NatsConnection,
    /** Namespaced. */
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

  async lastRevision(): Promise<number> {
    const jsm = await this.connection.jetstreamManager({ checkAPI: false });
    return (await jsm.streams.info(this.reader.stream)).state.last_seq;
  }

  /** A nudge only, since a notice may be lost. */
  onWrite(wake: () => void): Subscription {
    return this.connection.subscribe(this.allKeys, { callback: () => wake() });
  }
}
