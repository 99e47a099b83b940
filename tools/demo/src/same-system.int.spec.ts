import { EXPERIMENT_SUBJECTS } from '@rollout/contracts';
import { TEST_NATS_URL, uniqueName } from '@rollout/testing/kit';
import { NatsConnection, connect } from 'nats';
import { disagreement } from './same-system';

/**
 * Before the demo changes anything it checks that the gateway and its NATS are one system. The
 * gateway stands in here as what the demo sees of it on the real NATS server: the request for a
 * policy that it sends under its namespace (or none, when it uses another server).
 */
describe('the demo checks that its gateway and NATS agree', () => {
  let nc: NatsConnection;
  const gatewayNamespace = uniqueName('demo');
  const targets = (namespace: string) => ({
    gateway: 'http://127.0.0.1:3999',
    token: 'unused',
    natsUrl: TEST_NATS_URL,
    namespace,
  });
  /** A gateway whose services listen under `namespace`: it asks them for the policy of `path`. */
  const gatewayOn = (namespace: string) => async (path: string) => {
    const packet = { pattern: EXPERIMENT_SUBJECTS.getPolicy, data: { name: path.slice(4) } };
    nc.publish(`${namespace}.${EXPERIMENT_SUBJECTS.getPolicy}`, JSON.stringify(packet));
    await nc.flush();
  };

  beforeAll(async () => {
    nc = await connect({ servers: TEST_NATS_URL });
  });
  afterAll(() => nc.close());

  it('finds nothing to say when both use one namespace', async () => {
    expect(
      await disagreement(targets(gatewayNamespace), gatewayOn(gatewayNamespace)),
    ).toBeUndefined();
  });

  it("names the gateway's namespace when the demo's is another", async () => {
    expect(await disagreement(targets('elsewhere'), gatewayOn(gatewayNamespace))).toBe(
      `the gateway at http://127.0.0.1:3999 uses NATS namespace "${gatewayNamespace}", the demo namespace "elsewhere" (NATS_NAMESPACE): its traffic would never be evaluated. Set NATS_NAMESPACE=${gatewayNamespace} (npm start prints its namespace)`,
    );
  });

  it('says so when the gateway does not use this NATS server at all', async () => {
    expect(await disagreement(targets(gatewayNamespace), async () => undefined)).toBe(
      `the gateway at http://127.0.0.1:3999 does not use NATS at ${TEST_NATS_URL} (NATS_URL), under namespace "${gatewayNamespace}" or any other: point NATS_URL at the gateway's server (npm start prints it)`,
    );
  });
});
