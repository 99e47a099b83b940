import {
  EXPERIMENT_SUBJECTS,
  INSPECTION_RESULTS_SUBJECT,
  INSPECTION_RULES_SUBJECTS,
  PREVIEW_SUBJECTS,
  TRAFFIC_STREAM,
  trafficSubject,
} from '@rollout/contracts';
import { eventually } from '@rollout/testing/kit';
import { busSecuritySystem, permissionError } from '../../test/bus-security-system';
import { busTraffic, event } from '../../test/bus-traffic';

// The credentials handed out of the system (traffic producers, inspection agents), on the
// deployed bus: each may publish its own input and nothing else.
const bus = busSecuritySystem();
const { connectAs, violations } = bus;
const { evaluated, previewing, sendTraffic } = busTraffic(bus);

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

  it('shares no message ids with another project’s: an event id beta’s producer used first is not a duplicate in acme', async () => {
    await previewing('acme', 'shared');
    const before = await evaluated('acme', 'shared');
    await sendTraffic(await connectAs('producer-beta'), 'beta', 'core', ['evt-reused']);
    await sendTraffic(await connectAs('producer-acme'), 'acme', 'shared', ['evt-reused']);
    expect(await evaluated('acme', 'shared')).toBe(before + 1);
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
