import {
  ENFORCEMENT_SUBJECTS,
  EXPERIMENT_SUBJECTS,
  INSPECTION_RULES_SUBJECTS,
  PREVIEW_SUBJECTS,
} from '@rollout/contracts';
import { ACTOR_ASSERTION_HEADER, generateBusKeyPair } from '@rollout/platform/nats';
import { Msg, MsgHdrs, NatsConnection } from 'nats';
import {
  ACME_EDITOR,
  ACME_TOKEN,
  KEYS,
  busSecuritySystem,
  codec,
  hostLease,
  policyName,
  policyPath,
} from '../../test/bus-security-system';
import { rawRequest, signedAs, signer } from '../../test/bus-raw-requests';
import { allowSsh } from '../../test/bus-traffic';

// Requests sent straight onto the bus with forged, replayed, expired or mis-signed actor
// assertions are refused by every service and change nothing, whatever NATS lets through.
const { call, callOk, connectAs } = busSecuritySystem();

describe('actor assertions, checked by every service whatever NATS lets through', () => {
  let operator: NatsConnection;
  let captured: Msg;
  let etag: string;

  beforeAll(async () => {
    operator = await connectAs('admin');
    // What a refused request must leave in place: a lease and an inspection rule.
    await callOk('POST', '/v1/projects/acme/leases?leaseId=l1', hostLease('l1'), ACME_TOKEN);
    await callOk('POST', '/v1/inspection_rules', { actions: [{ op: 'log', args: ['seen'] }] });
    expect(
      (
        await call(
          'POST',
          `/v1/projects/acme/locations/global/firewallPolicies?firewallPolicyId=guarded`,
          { rules: [] },
          ACME_TOKEN,
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await call(
          'POST',
          `/v1/projects/beta/locations/global/firewallPolicies?firewallPolicyId=guarded`,
          { rules: [] },
        )
      ).status,
    ).toBe(200);
    // The operator sees a genuine request on its way (as someone able to read the bus would) and keeps it.
    const watch = operator.subscribe(EXPERIMENT_SUBJECTS.updatePolicy, { max: 1 });
    await operator.flush();
    expect(
      (
        await call(
          'PATCH',
          `${policyPath('acme', 'guarded')}?updateMask=rules`,
          { rules: [allowSsh] },
          ACME_TOKEN,
        )
      ).status,
    ).toBe(200);
    for await (const message of watch) captured = message;
    etag = (await call('GET', policyPath('acme', 'guarded'))).body.etag;
  });

  const unchanged = async () => {
    expect((await call('GET', policyPath('acme', 'guarded'))).body.etag).toBe(etag);
    expect((await call('GET', policyPath('beta', 'guarded'))).status).toBe(200);
  };
  const deleteAcme = { name: policyName('acme', 'guarded'), actor: 'acme-editor' };
  const denied = (reply: { err?: { status: string; details?: unknown[] } }, reason: string) => {
    expect(reply.err?.status).toBe('PERMISSION_DENIED');
    expect(JSON.stringify(reply.err?.details)).toContain(reason);
  };

  it('refuses a request without an assertion, on every service', async () => {
    denied(
      await rawRequest(operator, EXPERIMENT_SUBJECTS.deletePolicy, deleteAcme),
      'ACTOR_ASSERTION_MISSING',
    );
    denied(
      await rawRequest(operator, PREVIEW_SUBJECTS.previewReport, {
        name: `${policyName('acme', 'edge')}/experiments/preview`,
      }),
      'ACTOR_ASSERTION_MISSING',
    );
    denied(
      await rawRequest(operator, ENFORCEMENT_SUBJECTS.deleteLease, {
        project: 'acme',
        leaseId: 'l1',
        actor: 'acme-editor',
      }),
      'ACTOR_ASSERTION_MISSING',
    );
    denied(
      await rawRequest(operator, INSPECTION_RULES_SUBJECTS.deleteAll, { actor: 'acme-editor' }),
      'ACTOR_ASSERTION_MISSING',
    );
    await unchanged();
    expect((await call('GET', '/v1/projects/acme/leases/l1')).status).toBe(200);
    expect(
      (await call('GET', '/v1/inspection_rules')).body.inspection_rules.length,
    ).toBeGreaterThan(0);
  });

  it('refuses a forged, mis-signed or expired assertion', async () => {
    const forger = signer(generateBusKeyPair('test-1').signingKey);
    denied(
      await rawRequest(
        operator,
        EXPERIMENT_SUBJECTS.deletePolicy,
        deleteAcme,
        signedAs({ ...ACME_EDITOR, projects: '*' }, forger),
      ),
      'ACTOR_ASSERTION_BAD_SIGNATURE',
    );
    denied(
      await rawRequest(
        operator,
        EXPERIMENT_SUBJECTS.deletePolicy,
        deleteAcme,
        signedAs(ACME_EDITOR, signer(generateBusKeyPair('other').signingKey)),
      ),
      'ACTOR_ASSERTION_UNKNOWN_KEY',
    );
    denied(
      await rawRequest(
        operator,
        EXPERIMENT_SUBJECTS.deletePolicy,
        deleteAcme,
        signedAs(
          ACME_EDITOR,
          signer(KEYS.signingKey, () => Date.now() - 120_000),
        ),
      ),
      'ACTOR_ASSERTION_EXPIRED',
    );
    await unchanged();
  });

  it('refuses a genuine assertion replayed, or moved onto another request', async () => {
    const replay = codec.decode(
      (
        await operator.request(captured.subject, captured.data, {
          timeout: 10_000,
          headers: captured.headers as MsgHdrs,
        })
      ).data,
    ) as { err?: { status: string; details?: unknown[] } };
    denied(replay, 'ACTOR_ASSERTION_REPLAYED');
    denied(
      await rawRequest(operator, EXPERIMENT_SUBJECTS.deletePolicy, deleteAcme, () =>
        captured.headers!.get(ACTOR_ASSERTION_HEADER),
      ),
      'ACTOR_ASSERTION_OTHER_REQUEST',
    );
    await unchanged();
  });

  it('refuses a valid assertion naming a project the actor does not have, or another actor', async () => {
    denied(
      await rawRequest(
        operator,
        EXPERIMENT_SUBJECTS.deletePolicy,
        { name: policyName('beta', 'guarded'), actor: 'acme-editor' },
        signedAs(ACME_EDITOR),
      ),
      'PROJECT_NOT_ASSERTED',
    );
    denied(
      await rawRequest(
        operator,
        EXPERIMENT_SUBJECTS.deletePolicy,
        { ...deleteAcme, actor: 'operator' },
        signedAs(ACME_EDITOR),
      ),
      'ACTOR_MISMATCH',
    );
    await unchanged();
    // The same key and actor on its own project is served: the refusals above are the checks, not the key.
    expect(
      (
        await rawRequest(
          operator,
          EXPERIMENT_SUBJECTS.getPolicy,
          { name: policyName('acme', 'guarded') },
          signedAs(ACME_EDITOR),
        )
      ).err,
    ).toBeUndefined();
  });
});
