import { TRAFFIC_STREAM, trafficSubject, DEFAULT_BUS_LIMITS } from '@rollout/contracts';
import { NatsNamespace, inboxPrefixOf } from '@rollout/platform/nats';
import { provisionBus, BusUser, natsAuthorizationConfig } from '@rollout/provision';
import { NatsServer, startNatsServer } from '@rollout/testing/kit';
import { NatsConnection, connect } from 'nats';
import { TrafficLag } from './traffic-lag';

/**
 * The backlog a report shows, read with the evaluator's own NATS user on a server with the
 * deployed permissions: every request the read makes is one that user may make, so a report
 * read with a backlog leaves no violation in the server's log.
 */
const USERS: BusUser[] = [
  { user: 'provisioner', password: 'provisioner-pass', role: { kind: 'provisioner' } },
  { user: 'evaluator', password: 'evaluator-pass', role: { kind: 'evaluator' } },
  { user: 'admin', password: 'admin-pass', role: { kind: 'admin' } },
];
const ns = new NatsNamespace();
const stream = ns.stream(TRAFFIC_STREAM);

describe("the evaluator's backlog, read with its own NATS user", () => {
  let server: NatsServer;
  let provisioner: NatsConnection;
  let evaluator: NatsConnection;
  const as = (user: string, pass: string) =>
    connect({ servers: server.url, user, pass, inboxPrefix: inboxPrefixOf(user) });
  const violations = () =>
    server
      .log()
      .split('\n')
      .filter((line) => line.includes('Violation') && line.includes('User "evaluator"'))
      .join('\n');
  const publishedTime = async (seq: number) =>
    (await (await provisioner.jetstreamManager()).streams.getMessage(stream, { seq })).time;

  beforeAll(async () => {
    server = await startNatsServer(natsAuthorizationConfig(USERS));
    provisioner = await as('provisioner', 'provisioner-pass');
    await provisionBus(provisioner, {
      replicas: 1,
      limits: DEFAULT_BUS_LIMITS,
      services: ['evaluator'],
    });
    evaluator = await as('evaluator', 'evaluator-pass');
  });

  afterAll(async () => {
    await evaluator?.close();
    await provisioner?.close();
    await server?.stop();
  });

  it('says how many messages wait and when the oldest was published, and is refused nothing', async () => {
    const lag = new TrafficLag(evaluator, ns);
    expect(await lag.read()).toEqual({ pendingMessages: 0 });

    await publishTraffic(3);
    expect(await lag.read()).toEqual({
      pendingMessages: 3,
      oldestPendingTime: (await publishedTime(1)).toISOString(),
    });
    await evaluator.flush();
    expect(violations()).toBe('');
  });

  it('names the first message still in TRAFFIC when the oldest unread one is gone', async () => {
    const jsm = await provisioner.jetstreamManager();
    await jsm.streams.deleteMessage(stream, 1);
    const lag = await new TrafficLag(evaluator, ns).read();
    expect(lag?.oldestPendingTime).toBe((await publishedTime(2)).toISOString());
    await evaluator.flush();
    expect(violations()).toBe('');
  });

  async function publishTraffic(count: number) {
    // The provisioner may use JetStream's API only: an operator publishes the traffic.
    const publisher = await as('admin', 'admin-pass');
    try {
      const js = publisher.jetstream();
      for (let i = 0; i < count; i++)
        await js.publish(trafficSubject('acme', 'global', 'edge'), JSON.stringify({ id: `e${i}` }));
    } finally {
      await publisher.close();
    }
  }
});
