import { TEST_NATS_URL, uniqueName } from '@rollout/testing/kit';
import { NatsConnection, StringCodec, connect } from 'nats';
import { KvFollower, KvWriter, isKvRevisionConflict } from './kv-bucket';
import { kvAllKeys, kvKeyOf, kvStream, kvSubject } from './kv-subjects';

const codec = StringCodec();

describe('a KV bucket through JetStream', () => {
  let nc: NatsConnection;
  let bucket: string;

  beforeAll(async () => {
    nc = await connect({ servers: TEST_NATS_URL });
    bucket = uniqueName().replace(/[^A-Za-z0-9_-]/g, '_');
  });

  afterAll(async () => {
    await (await nc.jetstreamManager()).streams.delete(kvStream(bucket)).catch(() => undefined);
    await nc.close();
  });

  it("name the stream and subjects the server stores a bucket's keys under", async () => {
    const kv = await nc.jetstream().views.kv(bucket);
    await kv.put('policy.p1', codec.encode('one'));
    // A write on the subject by hand is an entry the bucket itself reads back.
    await nc.jetstream().publish(kvSubject(bucket, 'policy.p2'), codec.encode('two'));

    const jsm = await nc.jetstreamManager();
    const { config } = await jsm.streams.info(kvStream(bucket));
    expect(config.subjects).toEqual([kvAllKeys(bucket)]);
    const stored = await jsm.streams.getMessage(kvStream(bucket), {
      last_by_subj: kvSubject(bucket, 'policy.p1'),
    });
    expect(codec.decode(stored.data)).toBe('one');
    expect(kvKeyOf(bucket, stored.subject)).toBe('policy.p1');
    expect(codec.decode((await kv.get('policy.p2'))!.value)).toBe('two');
  });

  it("refuses to read a key from another bucket's subject", () => {
    expect(() => kvKeyOf(bucket, kvSubject(`${bucket}_other`, 'k'))).toThrow(
      /is not a subject of KV bucket/,
    );
  });

  it('writes compare-and-set, and its deletions are deletions to the KV view and to its follower', async () => {
    const kv = await nc.jetstream().views.kv(bucket);
    const writer = new KvWriter(nc.jetstream(), await nc.jetstreamManager(), bucket);
    const first = await writer.put('policy.p3', codec.encode('three'), { expectRevision: 0 });
    const stale = await writer
      .put('policy.p3', codec.encode('stale'), { expectRevision: 0 })
      .catch((error: unknown) => error);
    expect(isKvRevisionConflict(stale)).toBe(true);
    const deleted = await writer.delete('policy.p3', { expectRevision: first });

    expect(await kv.get('policy.p3')).toMatchObject({ operation: 'DEL', revision: deleted });
    expect(await writer.last('policy.p3')).toMatchObject({
      operation: 'DEL',
      revision: deleted,
    });
    expect(await writer.last('policy.never')).toBeUndefined();

    const follower = new KvFollower(nc, bucket);
    const followed = [];
    for (let entry = await follower.next(0); entry; entry = await follower.next(entry.revision))
      followed.push(`${entry.key} ${entry.operation} ${codec.decode(entry.value)}`);
    expect(followed).toEqual(['policy.p1 PUT one', 'policy.p2 PUT two', 'policy.p3 DEL ']);
    expect(await follower.lastRevision()).toBe(deleted);
  });
});
