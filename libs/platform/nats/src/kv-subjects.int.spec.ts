import { TEST_NATS_URL, uniqueName } from '@rollout/testing/kit';
import { NatsConnection, StringCodec, connect } from 'nats';
import { kvAllKeys, kvKeyOf, kvStream, kvSubject } from './kv-subjects';

const codec = StringCodec();

describe('KV subjects', () => {
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
});
