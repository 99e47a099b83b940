import { EXPERIMENT_SUBJECTS, StatusError, ActorClaims } from '@rollout/contracts';
import { NatsNamespace, NatsRpcClient } from '@rollout/platform/nats';
import {
  ActorAssertionSigner,
  generateBusKeyPair,
  parseBusKey,
} from '@rollout/platform/bus-security';
import { experimentServiceSystem } from '../../test/experiment-service-system';

/**
 * Who a command is recorded as comes from the request's `actor`, which the actor gate has
 * checked against the assertion: a command without one is refused, never recorded as someone.
 * On a service checking assertions, with the gateway's key and the evaluator's system key.
 */
const GATEWAY = generateBusKeyPair('test-gateway');
const EVALUATOR = generateBusKeyPair('system.evaluator.test');
const PARENT = 'projects/acme/locations/global';
const EXPERIMENT = `${PARENT}/firewallPolicies/web/experiments/tighten`;
const ADMIN: ActorClaims = { actor: 'alice', roles: ['admin'], projects: '*' };
const AUTO_STOP: ActorClaims = { actor: 'system:evaluator', roles: ['editor'], projects: ['acme'] };

describe('the actor a command is recorded as', () => {
  let gateway: NatsRpcClient;
  let evaluator: NatsRpcClient;
  experimentServiceSystem(async (system) => {
    system.env.BUS_VERIFY_KEYS = `${GATEWAY.verifyKey},${EVALUATOR.verifyKey}`;
    await system.start();
    const client = (signingKey: string) =>
      new NatsRpcClient(system.nc, new NatsNamespace(system.namespace), {
        name: 'test',
        actorSigner: new ActorAssertionSigner(parseBusKey(signingKey)!, 10_000),
      });
    gateway = client(GATEWAY.signingKey);
    evaluator = client(EVALUATOR.signingKey);
    const asAlice = (subject: string, data: object) =>
      gateway.request(subject, { actor: 'alice', ...data }, { timeoutMs: 5_000, actor: ADMIN });
    await asAlice(EXPERIMENT_SUBJECTS.createPolicy, {
      parent: PARENT,
      firewallPolicyId: 'web',
      firewallPolicy: { rules: [] },
    });
    await asAlice(EXPERIMENT_SUBJECTS.createExperiment, {
      parent: `${PARENT}/firewallPolicies/web`,
      experimentId: 'tighten',
      experiment: { firewallPolicy: { rules: [] } },
    });
    await asAlice(EXPERIMENT_SUBJECTS.startPreview, { name: EXPERIMENT });
  });

  const history = async () =>
    (
      await gateway.request<{ events: { type: string; actor: string }[] }>(
        EXPERIMENT_SUBJECTS.experimentEvents,
        { name: EXPERIMENT },
        { timeoutMs: 5_000, actor: ADMIN },
      )
    ).events.map(({ type, actor }) => `${type} by ${actor}`);

  it("refuses a system key's stopPreview that names no actor, and records nothing", async () => {
    const stop = evaluator.request(
      EXPERIMENT_SUBJECTS.stopPreview,
      { name: EXPERIMENT, reason: 'breaker' },
      { timeoutMs: 5_000, actor: AUTO_STOP },
    );
    await expect(stop).rejects.toBeInstanceOf(StatusError);
    await expect(stop).rejects.toMatchObject({
      status: 'INVALID_ARGUMENT',
      message: 'actor is required.',
    });
    expect(await history()).not.toContainEqual(expect.stringMatching(/^PreviewStopped/));
    expect((await history()).join('\n')).not.toContain('unknown');
  });

  it('records the stop of one that names its actor as that actor', async () => {
    await evaluator.request(
      EXPERIMENT_SUBJECTS.stopPreview,
      { name: EXPERIMENT, reason: 'breaker', actor: AUTO_STOP.actor },
      { timeoutMs: 5_000, actor: AUTO_STOP },
    );
    expect(await history()).toContain('PreviewStopped by system:evaluator');
  });
});
