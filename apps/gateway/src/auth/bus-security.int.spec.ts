import {
  ENFORCEMENT_SUBJECTS,
  EXPERIMENT_SUBJECTS,
  INSPECTION_RESULTS_SUBJECT,
  INSPECTION_RULES_SUBJECTS,
  PREVIEW_SUBJECTS,
  TRAFFIC_STREAM,
  adapterSubject,
  inspectionEventSubject,
  trafficSubject,
} from '@rollout/contracts';
import { ACTOR_ASSERTION_HEADER, generateBusKeyPair } from '@rollout/nats';
import { eventually } from '@rollout/testing';
import { Msg, MsgHdrs, NatsConnection } from 'nats';
import {
  ACME_EDITOR,
  ACME_TOKEN,
  KEYS,
  allowSsh,
  call,
  codec,
  connectAs,
  evaluated,
  event,
  permissionError,
  policyName,
  policyPath,
  previewing,
  rawRequest,
  sendTraffic,
  signedAs,
  signer,
  startBusSystem,
  stopBusSystem,
  violations,
} from '../../test/bus-security-system';

/**
 * Least privilege on the bus (docs/bus-security.md), on a nats-server of this test's own
 * started with the users and permissions the system is deployed with: the four services run
 * from their main.ts as their own NATS users and verify actor assertions, the gateway signs
 * them. Every denied operation is tried with the credential that must not have it; the
 * allowed paths are run end to end; requests sent straight onto NATS with forged, replayed,
 * expired or mis-signed assertions are refused and change nothing.
 */
beforeAll(startBusSystem, 90_000);
afterAll(stopBusSystem);

describe('allowed paths, each user with only its own permissions', () => {
  it('a project editor changes its policies through the gateway, and its producer moves its preview counts', async () => {
    await previewing('acme', 'edge');
    const before = await evaluated('acme', 'edge');
    await sendTraffic(await connectAs('producer-acme'), 'acme', 'edge', ['acme-1', 'acme-2']);
    expect(await evaluated('acme', 'edge')).toBe(before + 2);
    expect(
      (
        await call(
          'PATCH',
          `${policyPath('acme', 'edge')}?updateMask=rules`,
          { rules: [allowSsh] },
          ACME_TOKEN,
        )
      ).status,
    ).toBe(200);
    expect((await call('GET', policyPath('acme', 'edge'), undefined, ACME_TOKEN)).status).toBe(200);
  });

  it('leases and inspection rules are served, and an inspection agent’s event is evaluated', async () => {
    const lease = {
      name: 'l1',
      startDate: new Date(Date.now() + 3_600_000).toISOString(),
      endDate: new Date(Date.now() + 7_200_000).toISOString(),
      reservations: [{ resourceType: 'physical:host', min: 1, max: 1 }],
    };
    expect(
      (await call('POST', '/v1/projects/acme/leases?leaseId=l1', lease, ACME_TOKEN)).status,
    ).toBe(200);
    expect(
      (await call('POST', '/v1/inspection_rules', { actions: [{ op: 'log', args: ['seen'] }] }))
        .status,
    ).toBe(201);
    const agent = await connectAs('agent');
    await agent
      .jetstream()
      .publish(
        inspectionEventSubject('main'),
        JSON.stringify({ id: 'node-event-1', node: { uuid: 'n1' }, inventory: {} }),
        { msgID: 'node-event-1' },
      );
    const admin = await connectAs('admin');
    await eventually(
      async () =>
        (await (await admin.jetstreamManager()).streams.info('INSPECTION_RESULTS')).state.messages >
        0
          ? true
          : undefined,
      { what: 'an inspection result' },
    );
  });

  it('the enforcement-service calls its policy adapter, which answers', async () => {
    const enforcement = await connectAs('enforcement-service');
    const info = await eventually(
      async () =>
        codec.decode(
          (await enforcement.request(adapterSubject('budget', 'info'), '{}', { timeout: 5_000 }))
            .data,
        ) as { name?: string },
      { timeoutMs: 30_000, intervalMs: 250, what: 'the budget adapter answering' },
    );
    expect(info.name).toBe('budget');
  });

  it('no service nor the gateway was refused anything it does, so the permissions are enough to run on', () => {
    for (const user of [
      'gateway',
      'experiment-service',
      'evaluator',
      'enforcement-service',
      'inspection-rules-service',
      'budget-adapter',
      'producer-acme',
      'agent',
    ])
      expect(violations(user)).toBe('');
  });
});

describe('a traffic producer credential', () => {
  it('cannot move another project’s preview counts', async () => {
    await previewing('beta', 'core');
    const beta = await evaluated('beta', 'core');
    const producer = await connectAs('producer-acme');
    for (const major of ['v1', 'v2alpha']) {
      expect(
        await permissionError(() =>
          producer
            .jetstream()
            .publish(`traffic.${major}.beta.global.core`, JSON.stringify(event(`beta-${major}`)), {
              timeout: 5_000,
            }),
        ),
      ).toBe('PERMISSIONS_VIOLATION');
    }
    producer.publish('traffic.v1.beta.global.core', JSON.stringify(event('beta-core')));
    // Traffic sent after the refused attempts, settled: the evaluator has seen everything before it.
    await sendTraffic(producer, 'acme', 'edge', ['acme-after-beta']);
    expect(await evaluated('beta', 'core')).toBe(beta);
    expect(violations('producer-acme')).toContain(
      'Publish Violation - User "producer-acme", Subject "traffic.v1.beta.global.core"',
    );
  });

  it('may not call services, subscribe beyond its replies, or touch JetStream', async () => {
    const producer = await connectAs('producer-acme');
    const admin = await (await connectAs('admin')).jetstreamManager();
    const stored = (await admin.streams.info(TRAFFIC_STREAM)).state.messages;
    expect(
      await permissionError(() =>
        producer.request(EXPERIMENT_SUBJECTS.deletePolicy, '{}', { timeout: 5_000 }),
      ),
    ).toBe('PERMISSIONS_VIOLATION');
    expect(
      await permissionError(() =>
        producer.request(PREVIEW_SUBJECTS.previewReport, '{}', { timeout: 5_000 }),
      ),
    ).toBe('PERMISSIONS_VIOLATION');
    const jsm = await producer.jetstreamManager({ checkAPI: false });
    expect(await permissionError(() => jsm.streams.delete(TRAFFIC_STREAM))).toBe(
      'PERMISSIONS_VIOLATION',
    );
    expect(await permissionError(() => jsm.streams.purge(TRAFFIC_STREAM))).toBe(
      'PERMISSIONS_VIOLATION',
    );
    expect(
      await permissionError(() => jsm.consumers.add(TRAFFIC_STREAM, { durable_name: 'thief' })),
    ).toBe('PERMISSIONS_VIOLATION');
    expect(await permissionError(() => jsm.streams.info(TRAFFIC_STREAM))).toBe(
      'PERMISSIONS_VIOLATION',
    );
    for (const subject of ['traffic.>', '_INBOX.>', 'experiment.v1.>', '_INBOX_gateway.>'])
      producer.subscribe(subject);
    await producer.flush();
    await eventually(
      () =>
        violations('producer-acme').includes(
          'Subscription Violation - User "producer-acme", Subject "_INBOX_gateway.>"',
        )
          ? true
          : undefined,
      { what: 'subscriptions refused' },
    );
    for (const subject of ['traffic.>', '_INBOX.>', 'experiment.v1.>'])
      expect(violations('producer-acme')).toContain(
        `Subscription Violation - User "producer-acme", Subject "${subject}"`,
      );
    expect((await admin.streams.info(TRAFFIC_STREAM)).state.messages).toBe(stored);
    expect((await admin.consumers.list(TRAFFIC_STREAM).next()).map((c) => c.name)).toEqual([
      'evaluator',
    ]);
  });
});

describe('an inspection agent credential', () => {
  it('publishes inspection events only', async () => {
    const agent = await connectAs('agent');
    expect(
      await permissionError(() =>
        agent.request(INSPECTION_RULES_SUBJECTS.deleteAll, '{}', { timeout: 5_000 }),
      ),
    ).toBe('PERMISSIONS_VIOLATION');
    expect(
      await permissionError(() =>
        agent.jetstream().publish(INSPECTION_RESULTS_SUBJECT, '{}', { timeout: 5_000 }),
      ),
    ).toBe('PERMISSIONS_VIOLATION');
    expect(
      await permissionError(() =>
        agent
          .jetstream()
          .publish(trafficSubject('acme', 'global', 'edge'), '{}', { timeout: 5_000 }),
      ),
    ).toBe('PERMISSIONS_VIOLATION');
    expect(
      await permissionError(() =>
        agent.jetstreamManager({ checkAPI: false }).then((jsm) => jsm.streams.purge('INSPECTION')),
      ),
    ).toBe('PERMISSIONS_VIOLATION');
  });
});

describe('service credentials', () => {
  it('the gateway may only call the services', async () => {
    const nc = await connectAs('gateway');
    expect(
      await permissionError(() =>
        nc.jetstream().publish(trafficSubject('acme', 'global', 'edge'), '{}', { timeout: 5_000 }),
      ),
    ).toBe('PERMISSIONS_VIOLATION');
    expect(
      await permissionError(() =>
        nc
          .jetstream()
          .publish('experiment.v1.events.policy.acme.global.edge', '{}', { timeout: 5_000 }),
      ),
    ).toBe('PERMISSIONS_VIOLATION');
    expect(
      await permissionError(() =>
        nc.jetstreamManager({ checkAPI: false }).then((jsm) => jsm.streams.delete(TRAFFIC_STREAM)),
      ),
    ).toBe('PERMISSIONS_VIOLATION');
    nc.subscribe(EXPERIMENT_SUBJECTS.getPolicy);
    await nc.flush();
    await eventually(
      () =>
        violations('gateway').includes(
          `Subscription Violation - User "gateway", Subject "${EXPERIMENT_SUBJECTS.getPolicy}"`,
        )
          ? true
          : undefined,
      { what: 'subscription refused' },
    );
  });

  it('the evaluator calls nothing and cannot change the state it reads', async () => {
    const nc = await connectAs('evaluator');
    expect(
      await permissionError(() =>
        nc.request(EXPERIMENT_SUBJECTS.getPolicy, '{}', { timeout: 5_000 }),
      ),
    ).toBe('PERMISSIONS_VIOLATION');
    expect(
      await permissionError(() =>
        nc.request(ENFORCEMENT_SUBJECTS.listLeases, '{}', { timeout: 5_000 }),
      ),
    ).toBe('PERMISSIONS_VIOLATION');
    expect(
      await permissionError(() =>
        nc.jetstream().publish('$KV.EXPERIMENT_STATE.experiment.v1.policy.acme.global.edge', '{}', {
          timeout: 5_000,
        }),
      ),
    ).toBe('PERMISSIONS_VIOLATION');
    const jsm = await nc.jetstreamManager({ checkAPI: false });
    expect(await permissionError(() => jsm.streams.delete('KV_EXPERIMENT_STATE'))).toBe(
      'PERMISSIONS_VIOLATION',
    );
    expect(await permissionError(() => jsm.streams.purge('EXPERIMENT_EVENTS'))).toBe(
      'PERMISSIONS_VIOLATION',
    );
  });

  it('each other service publishes only what it owns and serves only its own subjects', async () => {
    const experiment = await connectAs('experiment-service');
    expect(
      await permissionError(() =>
        experiment
          .jetstream()
          .publish('preview.v1.logs.acme.global.edge.preview', '{}', { timeout: 5_000 }),
      ),
    ).toBe('PERMISSIONS_VIOLATION');
    expect(
      await permissionError(() =>
        experiment.request(PREVIEW_SUBJECTS.previewReport, '{}', { timeout: 5_000 }),
      ),
    ).toBe('PERMISSIONS_VIOLATION');
    const enforcement = await connectAs('enforcement-service');
    expect(
      await permissionError(() =>
        enforcement.request(EXPERIMENT_SUBJECTS.deletePolicy, '{}', { timeout: 5_000 }),
      ),
    ).toBe('PERMISSIONS_VIOLATION');
    const adapter = await connectAs('budget-adapter');
    expect(
      await permissionError(() =>
        adapter.request(ENFORCEMENT_SUBJECTS.listLeases, '{}', { timeout: 5_000 }),
      ),
    ).toBe('PERMISSIONS_VIOLATION');
    const inspection = await connectAs('inspection-rules-service');
    expect(
      await permissionError(() =>
        inspection
          .jetstream()
          .publish('experiment.v1.events.policy.acme.global.edge', '{}', { timeout: 5_000 }),
      ),
    ).toBe('PERMISSIONS_VIOLATION');
    enforcement.subscribe(EXPERIMENT_SUBJECTS.deletePolicy, { queue: 'experiment-service' });
    await enforcement.flush();
    await eventually(
      () =>
        violations('enforcement-service').includes(`Subject "${EXPERIMENT_SUBJECTS.deletePolicy}"`)
          ? true
          : undefined,
      { what: 'subscription refused' },
    );
  });
});

describe('actor assertions, checked by every service whatever NATS lets through', () => {
  let operator: NatsConnection;
  let captured: Msg;
  let etag: string;

  beforeAll(async () => {
    operator = await connectAs('admin');
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
