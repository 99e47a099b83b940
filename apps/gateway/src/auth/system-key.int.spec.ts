import { EXPERIMENT_SUBJECTS } from '@rollout/contracts';
import { eventually } from '@rollout/testing/kit';
import { randomUUID } from 'node:crypto';
import {
  EVALUATOR_KEYS,
  busSecuritySystem,
  permissionError,
  policyName,
  policyPath,
} from '../../test/bus-security-system';
import { rawRequest, signedAs, signer } from '../../test/bus-raw-requests';
import { allowSsh, busTraffic } from '../../test/bus-traffic';

/**
 * The evaluator's system key (docs/bus-security.md, "System keys") on the deployed bus: its
 * auto-stop works with every service checking assertions, and the key asserts nothing else.
 */
const bus = busSecuritySystem();
const { call, connectAs } = bus;
const { sendTraffic } = busTraffic(bus);

const system = { actor: 'system:evaluator', roles: ['editor'], projects: ['acme'] };

describe("the evaluator's system key", () => {
  it('stops a preview by itself when its breaker trips, recorded as system:evaluator', async () => {
    // Given a live policy allowing ssh and an experiment with no rules (the implied deny), its breaker at 50%.
    expect(
      (
        await call(
          'POST',
          '/v1/projects/acme/locations/global/firewallPolicies?firewallPolicyId=auto',
          { rules: [allowSsh] },
        )
      ).status,
    ).toBe(200);
    const experiment = `${policyPath('acme', 'auto')}/experiments/tripped`;
    const created = await call(
      'POST',
      `${policyPath('acme', 'auto')}/experiments?experimentId=tripped`,
      { firewallPolicy: { rules: [] }, breaker: { maxAllowToDenyShare: 0.5, minEvaluated: 2 } },
    );
    expect(created.status).toBe(200);
    expect((await call('POST', `${experiment}:startPreview`)).status).toBe(200);

    // When a producer's ssh traffic flows (until the preview has taken it in).
    const producer = await connectAs('producer-acme');
    await eventually(
      async () => {
        await sendTraffic(producer, 'acme', 'auto', [
          `auto-${randomUUID()}`,
          `auto-${randomUUID()}`,
        ]);
        return (await call('GET', experiment)).body.previewMetadata.state === 'SUSPENDED'
          ? true
          : undefined;
      },
      { what: 'the preview stopped by itself', timeoutMs: 30_000, intervalMs: 500 },
    );

    // Then it was stopped once, by the system, with the breaker's reason.
    const stops = (await call('GET', `${experiment}/events`)).body.events.filter(
      (e: { type: string }) => e.type === 'PreviewStopped',
    );
    expect(stops).toEqual([
      expect.objectContaining({
        actor: 'system:evaluator',
        reason: expect.stringMatching(/^breaker: allow→deny is 100% of evaluated/),
      }),
    ]);
  });

  it('asserts nothing but its own stopPreview: another actor or another subject is refused', async () => {
    const name = `${policyName('acme', 'edge')}/experiments/preview`;
    const systemKey = signer(EVALUATOR_KEYS.signingKey);
    const evaluator = await connectAs('evaluator');
    // As someone else, on the one subject its user may send.
    const asAlice = await rawRequest(
      evaluator,
      EXPERIMENT_SUBJECTS.stopPreview,
      { name, actor: 'alice' },
      signedAs({ ...system, actor: 'alice' }, systemKey),
    );
    expect(asAlice.err?.status).toBe('PERMISSION_DENIED');
    expect(JSON.stringify(asAlice.err?.details)).toContain('ACTOR_ASSERTION_KEY_SCOPE');
    // Its NATS user may not send a commit; sent by a user who may, its key does not carry it either.
    expect(
      await permissionError(() =>
        evaluator.request(EXPERIMENT_SUBJECTS.commit, '{}', { timeout: 5_000 }),
      ),
    ).toBe('PERMISSIONS_VIOLATION');
    const commit = await rawRequest(
      await connectAs('admin'),
      EXPERIMENT_SUBJECTS.commit,
      { name, actor: system.actor },
      signedAs(system, systemKey),
    );
    expect(commit.err?.status).toBe('PERMISSION_DENIED');
    expect(JSON.stringify(commit.err?.details)).toContain('ACTOR_ASSERTION_KEY_SCOPE');
  });
});
