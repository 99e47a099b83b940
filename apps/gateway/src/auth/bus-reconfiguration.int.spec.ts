import {
  EXPERIMENT_EVENTS_STREAM,
  EXPERIMENT_STATE_BUCKET,
  PREVIEW_LOGS_STREAM,
  TRAFFIC_STREAM,
  trafficSubject,
  ASSERTION_IDS_KV,
  DEAD_LETTER_STREAM,
  INSPECTION_DURABLE,
  INSPECTION_RESULTS_STREAM,
  INSPECTION_STREAM,
  TRAFFIC_DURABLE,
} from '@rollout/contracts';
import { kvDeletionHeaders } from '@rollout/platform/nats';
import { eventually } from '@rollout/testing/kit';
import { NatsConnection } from 'nats';
import { RUNTIME_USERS, busSecuritySystem, permissionError } from '../../test/bus-security-system';

// The attacks of an independent review, each with every runtime credential, on a nats-server
// started with the deployed users and permissions after the provisioning step ran
// (docs/bus-security.md): no runtime user may reconfigure the bus. Each attempt is refused by
// the server, and the admin connection then finds every stream, consumer and bucket as
// provisioned, and nothing stored.
const { connectAs, violations } = busSecuritySystem();

const STATE_STREAM = `KV_${EXPERIMENT_STATE_BUCKET}`;
/** The replay check's bucket: every verifying service writes keys, none may read, purge or delete. */
const ASSERTION_STREAM = `KV_${ASSERTION_IDS_KV.bucket}`;
const STREAMS = [
  TRAFFIC_STREAM,
  PREVIEW_LOGS_STREAM,
  DEAD_LETTER_STREAM.name,
  EXPERIMENT_EVENTS_STREAM,
  STATE_STREAM,
  INSPECTION_STREAM,
  INSPECTION_RESULTS_STREAM,
  ASSERTION_STREAM,
];
/** What a consumer of each stream would be filtered to: the subjects the evaluator used to read with consumers of its own. */
const FILTERS: Record<string, string> = {
  [TRAFFIC_STREAM]: 'traffic.>',
  [STATE_STREAM]: `$KV.${EXPERIMENT_STATE_BUCKET}.>`,
};
/** The provisioned durables, as [stream, durable, a filter it does not have]. */
const DURABLES: [string, string, string][] = [
  [TRAFFIC_STREAM, TRAFFIC_DURABLE, 'traffic.v1.acme.>'],
  [INSPECTION_STREAM, INSPECTION_DURABLE, 'inspection.v1.early'],
];
/** Another user's subject: the budget adapter's, where a delivery would spend another project's quota. */
const STOLEN_DELIVERY = 'adapter.v1.budget.stolen';

interface BusState {
  streams: Record<string, { config: unknown; messages: number; lastSeq: number }>;
  durables: Record<string, string[]>;
  /** Every consumer's config (ephemeral ones included), by stream and name. */
  consumers: Record<string, unknown>;
}

/** What the admin sees: every stream's config and contents, and the consumers of each. */
async function busState(admin: NatsConnection): Promise<BusState> {
  const jsm = await admin.jetstreamManager();
  const state: BusState = { streams: {}, durables: {}, consumers: {} };
  for (const info of await jsm.streams.list().next()) {
    const { name } = info.config;
    state.streams[name] = {
      config: info.config,
      messages: info.state.messages,
      lastSeq: info.state.last_seq,
    };
    const consumers = await jsm.consumers.list(name).next();
    state.durables[name] = consumers
      .filter((c) => c.config.durable_name)
      .map((c) => c.name)
      .sort();
    for (const consumer of consumers) state.consumers[`${name}/${consumer.name}`] = consumer.config;
  }
  return state;
}

/** Every reconfiguration the review tried, as JetStream API requests of `user`. */
function attacks(user: string): { what: string; subject: string; body: unknown }[] {
  const list: { what: string; subject: string; body: unknown }[] = [];
  for (const stream of STREAMS) {
    list.push(
      {
        what: `widen ${stream} to every subject`,
        subject: `$JS.API.STREAM.UPDATE.${stream}`,
        body: { name: stream, subjects: ['>'] },
      },
      {
        what: `add republish to ${stream}`,
        subject: `$JS.API.STREAM.UPDATE.${stream}`,
        body: {
          name: stream,
          subjects: ['traffic.>'],
          republish: { src: '>', dest: trafficSubject('beta', 'global', 'edge') },
        },
      },
      { what: `purge ${stream}`, subject: `$JS.API.STREAM.PURGE.${stream}`, body: {} },
      { what: `delete ${stream}`, subject: `$JS.API.STREAM.DELETE.${stream}`, body: {} },
      {
        what: `restore over ${stream}`,
        subject: `$JS.API.STREAM.RESTORE.${stream}`,
        body: { config: { name: stream, subjects: ['>'] } },
      },
      {
        what: `delete a message of ${stream}`,
        subject: `$JS.API.STREAM.MSG.DELETE.${stream}`,
        body: { seq: 1 },
      },
      {
        what: `mirror ${stream}`,
        subject: `$JS.API.STREAM.CREATE.MIRROR_${stream}`,
        body: { name: `MIRROR_${stream}`, mirror: { name: stream } },
      },
      {
        what: `source ${stream}`,
        subject: `$JS.API.STREAM.CREATE.SOURCE_${stream}`,
        body: { name: `SOURCE_${stream}`, sources: [{ name: stream }] },
      },
    );
    const filter = FILTERS[stream] ?? '>';
    list.push(
      {
        what: `an ephemeral consumer on ${stream}`,
        subject: `$JS.API.CONSUMER.CREATE.${stream}`,
        body: { stream_name: stream, config: { ack_policy: 'none' } },
      },
      {
        what: `a named consumer on ${stream}`,
        subject: `$JS.API.CONSUMER.CREATE.${stream}.thief.${filter}`,
        body: {
          stream_name: stream,
          config: { name: 'thief', filter_subject: filter, ack_policy: 'none' },
        },
      },
      {
        what: `a push consumer on ${stream} delivering to another user's subject`,
        subject: `$JS.API.CONSUMER.CREATE.${stream}.push.${filter}`,
        body: {
          stream_name: stream,
          config: {
            name: 'push',
            filter_subject: filter,
            deliver_subject: STOLEN_DELIVERY,
            ack_policy: 'none',
          },
        },
      },
      {
        what: `an ephemeral push consumer on ${stream} delivering to another user's subject`,
        subject: `$JS.API.CONSUMER.CREATE.${stream}`,
        body: {
          stream_name: stream,
          config: { deliver_subject: STOLEN_DELIVERY, ack_policy: 'none' },
        },
      },
      {
        what: `a durable push consumer on ${stream} delivering to another user's subject`,
        subject: `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.push`,
        body: {
          stream_name: stream,
          config: { durable_name: 'push', deliver_subject: STOLEN_DELIVERY, ack_policy: 'none' },
        },
      },
      ...[user, 'evaluator', 'inspection-rules-service'].map((name) => ({
        what: `a durable named ${name} on ${stream}`,
        subject: `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.${name}`,
        body: { stream_name: stream, config: { durable_name: name, ack_policy: 'explicit' } },
      })),
    );
  }
  for (const [stream, durable, otherFilter] of DURABLES) {
    const config = { durable_name: durable, ack_policy: 'explicit', deliver_policy: 'all' };
    list.push(
      {
        what: `retarget ${stream}/${durable} to ${otherFilter}`,
        subject: `$JS.API.CONSUMER.CREATE.${stream}.${durable}.${otherFilter}`,
        body: { stream_name: stream, config: { ...config, filter_subject: otherFilter } },
      },
      {
        what: `retarget ${stream}/${durable} by its durable name`,
        subject: `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.${durable}`,
        body: { stream_name: stream, config: { ...config, filter_subject: otherFilter } },
      },
      {
        what: `change ${stream}/${durable}'s ack wait and max deliver`,
        subject: `$JS.API.CONSUMER.CREATE.${stream}.${durable}`,
        body: { stream_name: stream, config: { ...config, ack_wait: 1_000_000, max_deliver: 1 } },
      },
      {
        what: `turn ${stream}/${durable} into a push consumer delivering to another user's subject`,
        subject: `$JS.API.CONSUMER.CREATE.${stream}.${durable}`,
        body: { stream_name: stream, config: { ...config, deliver_subject: STOLEN_DELIVERY } },
      },
      {
        what: `delete ${stream}/${durable}`,
        subject: `$JS.API.CONSUMER.DELETE.${stream}.${durable}`,
        body: {},
      },
      {
        what: `re-create ${stream}/${durable} delivering only new messages`,
        subject: `$JS.API.CONSUMER.CREATE.${stream}.${durable}.${FILTERS[stream] ?? '>'}`,
        body: {
          stream_name: stream,
          config: { ...config, deliver_policy: 'new', filter_subject: FILTERS[stream] ?? '>' },
        },
      },
    );
  }
  list.push(
    {
      what: `read an assertion id of ${ASSERTION_STREAM}`,
      subject: `$JS.API.STREAM.MSG.GET.${ASSERTION_STREAM}`,
      body: { seq: 1 },
    },
    {
      what: `read an assertion id of ${ASSERTION_STREAM} directly`,
      subject: `$JS.API.DIRECT.GET.${ASSERTION_STREAM}`,
      body: { seq: 1 },
    },
  );
  list.push({
    what: 'a new stream capturing every subject',
    subject: '$JS.API.STREAM.CREATE.CAPTURE',
    body: { name: 'CAPTURE', subjects: ['>'] },
  });
  return list;
}

describe('no runtime credential can reconfigure the bus', () => {
  let admin: NatsConnection;
  let before: BusState;
  /** What reaches another user's subject (the budget adapter's) while the attacks run. */
  const delivered: string[] = [];

  beforeAll(async () => {
    admin = await connectAs('admin');
    before = await busState(admin);
    const adapter = await connectAs('budget-adapter');
    adapter.subscribe(STOLEN_DELIVERY, {
      callback: (_, message) => delivered.push(message.string()),
    });
    await adapter.flush();
  });

  it('the provisioning step created every stream, durable consumer and bucket before the services started', () => {
    expect(Object.keys(before.streams).sort()).toEqual([...STREAMS].sort());
    expect(before.durables[TRAFFIC_STREAM]).toEqual(['evaluator']);
    expect(before.durables[INSPECTION_STREAM]).toEqual(['inspection-rules-service']);
  });

  it.each(RUNTIME_USERS)(
    '%s: creating, widening, republishing, mirroring, sourcing, purging, deleting or restoring a stream, deleting a message, creating any consumer (push ones delivering to another user included), retargeting, changing, deleting or re-creating a durable: each refused',
    async (user) => {
      const nc = await connectAs(user);
      const refused = await Promise.all(
        attacks(user).map(async ({ what, subject, body }) => ({
          what,
          outcome: await permissionError(() =>
            nc.request(subject, JSON.stringify(body), { timeout: 5_000 }),
          ),
        })),
      );
      expect(refused.filter((r) => r.outcome !== 'PERMISSIONS_VIOLATION')).toEqual([]);
    },
    60_000,
  );

  it.each(RUNTIME_USERS.filter((user) => user !== 'experiment-service'))(
    '%s: writing or deleting an entry of the state bucket, which only the experiment-service writes: refused',
    async (user) => {
      const nc = await connectAs(user);
      const key = `$KV.${EXPERIMENT_STATE_BUCKET}.experiment.v1.policy.acme.global.forged`;
      nc.publish(key, '{"forged":true}');
      nc.publish(key, '', { headers: kvDeletionHeaders() });
      await nc.flush();
      await eventually(() => (violations(user).includes(`Subject "${key}"`) ? true : undefined), {
        what: `${user}'s write refused`,
      });
    },
  );

  it('after every attempt, the admin finds the bus as provisioned: same streams and configs, same durables and consumers, nothing stored, nothing delivered', async () => {
    expect(await busState(admin)).toEqual(before);
    // A message of the operator's own, after every attempt: once it arrives, nothing else has.
    admin.publish(STOLEN_DELIVERY, 'sentinel');
    await eventually(() => (delivered.length > 0 ? true : undefined), {
      what: 'the sentinel',
    });
    expect(delivered).toEqual(['sentinel']);
  });
});
