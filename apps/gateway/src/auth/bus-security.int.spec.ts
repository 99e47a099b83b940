import {
  ENFORCEMENT_SUBJECTS,
  EXPERIMENT_SUBJECTS,
  PREVIEW_SUBJECTS,
  TRAFFIC_STREAM,
  adapterSubject,
  inspectionEventSubject,
  trafficSubject,
} from '@rollout/contracts';
import { eventually } from '@rollout/testing/kit';
import {
  ACME_TOKEN,
  RUNTIME_USERS,
  busSecuritySystem,
  codec,
  hostLease,
  permissionError,
  policyPath,
} from '../../test/bus-security-system';
import { allowSsh, busTraffic } from '../../test/bus-traffic';

// Least privilege on the bus (docs/bus-security.md), on a nats-server started with the deployed
// users and permissions: every path the system uses works, and each service may do no more.
const bus = busSecuritySystem();
const { call, connectAs, violations } = bus;
const { evaluated, previewing, sendTraffic } = busTraffic(bus);

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
    expect(
      (await call('POST', '/v1/projects/acme/leases?leaseId=l1', hostLease('l1'), ACME_TOKEN))
        .status,
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
    for (const user of RUNTIME_USERS) expect(violations(user)).toBe('');
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
