import {
  INSPECTION_RESULTS_SUBJECT,
  InspectionEvent,
  InspectionPhase,
  InspectionResult,
  inspectionEventSubject,
} from '@rollout/contracts';
import { applyJsonPatch } from '@rollout/inspection-domain';
import { DEAD_LETTER_REASON_HEADER, DEAD_LETTER_STREAM, NatsNamespace } from '@rollout/nats';
import { TEST_NATS_URL, eventually } from '@rollout/testing';
import { NatsConnection, connect } from 'nats';
import { RulesApplication } from '../rules/rules.application';

const TEST_ACTOR = { actor: 'test' };
import { TestService, startTestService } from '../../test/in-process-service';
import {
  INSPECTION_DURABLE,
  INSPECTION_RESULTS_STREAM,
  INSPECTION_STREAM,
} from './inspection-events';

// The seed's two examples, as written there (with its `{plugin_data[bmc_address}` typo fixed), as built-in rules.
const BUILT_INS = `
- description: Initialize freshly discovered nodes
  sensitive: true
  conditions:
    - op: is-true
      args: ["{node.auto_discovered}"]
    - op: "!is-empty"
      args: ["{plugin_data[bmc_address]}"]
  actions:
    - op: set-attribute
      args: ["/driver", "ipmi"]
    - op: set-attribute
      args: ["/driver_info/ipmi_address", "{plugin_data[bmc_address]}"]
    - op: set-attribute
      args: ["/driver_info/ipmi_username", "admin"]
    - op: set-attribute
      args: ["/driver_info/ipmi_password", "pa$$w0rd"]

- description: Initialize Dell nodes using IPv6
  sensitive: true
  conditions:
    - op: is-true
      args: ["{node.auto_discovered}"]
    - op: contains
      args: ["{inventory[system_vendor][manufacturer]}", "(?i)dell"]
  actions:
    - op: set-attribute
      args: ["/driver", "idrac"]
    - op: set-attribute
      args: ["/driver_info/redfish_address", "https://{inventory[bmc_v6address]}"]
    - op: set-attribute
      args: ["/driver_info/redfish_username", "root"]
    - op: set-attribute
      args: ["/driver_info/redfish_password", "calvin"]
`;

describe('inspection events over JetStream', () => {
  let apps: TestService;
  let nc: NatsConnection;
  let ns: NatsNamespace;

  beforeAll(async () => {
    apps = await startTestService(BUILT_INS);
    ns = new NatsNamespace(apps.namespace);
    nc = await connect({ servers: TEST_NATS_URL });
  });

  afterAll(async () => {
    await nc?.close();
    await apps?.close();
  });

  const publish = async (phase: InspectionPhase, event: unknown, msgID?: string) =>
    (
      await nc
        .jetstream()
        .publish(
          ns.subject(inspectionEventSubject(phase)),
          typeof event === 'string' || event instanceof Uint8Array ? event : JSON.stringify(event),
          { msgID },
        )
    ).seq;

  async function results(): Promise<InspectionResult[]> {
    const jsm = await nc.jetstreamManager();
    const info = await jsm.streams.info(ns.stream(INSPECTION_RESULTS_STREAM));
    const found: InspectionResult[] = [];
    for (
      let seq = info.state.first_seq;
      seq <= info.state.last_seq && info.state.messages > 0;
      seq++
    ) {
      const stored = await jsm.streams.getMessage(ns.stream(INSPECTION_RESULTS_STREAM), { seq });
      expect(stored.subject).toBe(ns.subject(INSPECTION_RESULTS_SUBJECT));
      found.push(stored.json<InspectionResult>());
    }
    return found;
  }

  const resultOf = (eventId: string) =>
    eventually(async () => (await results()).find((r) => r.eventId === eventId), {
      what: `result of ${eventId}`,
    });

  /** Waits until the consumer has settled every message up to `seq`. */
  const settled = (seq: number) =>
    eventually(
      async () => {
        const info = await (
          await nc.jetstreamManager()
        ).consumers.info(ns.stream(INSPECTION_STREAM), INSPECTION_DURABLE);
        return info.ack_floor.stream_seq >= seq ? true : undefined;
      },
      { what: `event ${seq} settled` },
    );

  const dellEvent = (id: string): InspectionEvent => ({
    id,
    node: { uuid: 'node-dell', auto_discovered: true, driver_info: {} },
    ports: [{ uuid: 'port-1', address: '52:54:00:00:00:01' }],
    port_groups: [],
    inventory: { system_vendor: { manufacturer: 'Dell Inc.' }, bmc_v6address: '2001:db8::42' },
    plugin_data: {},
    scope: null,
  });

  it("runs the seed's Dell example on an event and publishes its node changes", async () => {
    await publish('main', dellEvent('evt-dell'), 'evt-dell');
    const result = await resultOf('evt-dell');
    expect(result).toEqual({
      eventId: 'evt-dell',
      phase: 'main',
      node_uuid: 'node-dell',
      matched_rules: [
        { uuid: expect.any(String), description: 'Initialize Dell nodes using IPv6' },
      ],
      node_patch: [
        { op: 'add', path: '/driver', value: 'idrac' },
        { op: 'add', path: '/driver_info/redfish_address', value: 'https://2001:db8::42' },
        { op: 'add', path: '/driver_info/redfish_username', value: 'root' },
        { op: 'add', path: '/driver_info/redfish_password', value: 'calvin' },
      ],
      port_patches: {},
      plugin_data: {},
    });
  });

  it("runs the seed's discovered-nodes example, and both examples in order for a discovered Dell with a BMC address", async () => {
    await publish('main', {
      id: 'evt-discovered',
      node: { uuid: 'node-new', auto_discovered: true, driver_info: {} },
      inventory: { system_vendor: { manufacturer: 'Supermicro' } },
      plugin_data: { bmc_address: '192.0.2.10' },
    });
    expect(await resultOf('evt-discovered')).toMatchObject({
      node_uuid: 'node-new',
      matched_rules: [{ description: 'Initialize freshly discovered nodes' }],
      node_patch: [
        { op: 'add', path: '/driver', value: 'ipmi' },
        { op: 'add', path: '/driver_info/ipmi_address', value: '192.0.2.10' },
        { op: 'add', path: '/driver_info/ipmi_username', value: 'admin' },
        { op: 'add', path: '/driver_info/ipmi_password', value: 'pa$$w0rd' },
      ],
      plugin_data: { bmc_address: '192.0.2.10' },
    });
    await publish('main', { ...dellEvent('evt-both'), plugin_data: { bmc_address: '192.0.2.11' } });
    const both = await resultOf('evt-both');
    expect(both.matched_rules.map((r) => r.description)).toEqual([
      'Initialize freshly discovered nodes',
      'Initialize Dell nodes using IPv6',
    ]);
    expect(both.node_patch[0]).toEqual({ op: 'add', path: '/driver', value: 'ipmi' });
    expect(both.node_patch[4]).toEqual({ op: 'add', path: '/driver', value: 'idrac' });
    // A node that was not discovered is left alone.
    await publish('main', {
      ...dellEvent('evt-known'),
      node: { uuid: 'node-known', auto_discovered: false },
    });
    expect(await resultOf('evt-known')).toMatchObject({ matched_rules: [], node_patch: [] });
  });

  it('applies scoped rules to events of that scope only, and stores events whose data holds NUL characters', async () => {
    await apps.app.get(RulesApplication).create(
      {
        phase: 'preprocess',
        scope: 'rack-7',
        actions: [
          { op: 'set-plugin-data', args: ['/serial', '{inventory[system_vendor][serial_number]}'] },
        ],
      },
      TEST_ACTOR,
    );
    const inventory = {
      system_vendor: { manufacturer: 'Lenovo', serial_number: 'S1\u0000\u0000' },
    };
    await publish('preprocess', {
      id: 'evt-rack-7',
      node: { uuid: 'n7' },
      inventory,
      scope: 'rack-7',
    });
    await publish('preprocess', {
      id: 'evt-rack-8',
      node: { uuid: 'n8' },
      inventory,
      scope: 'rack-8',
    });
    expect((await resultOf('evt-rack-7')).plugin_data).toEqual({ serial: 'S1\u0000\u0000' });
    expect(await resultOf('evt-rack-8')).toMatchObject({
      phase: 'preprocess',
      matched_rules: [],
      plugin_data: {},
    });
  });

  it('publishes one result per event id, even when the event comes again after the rules changed', async () => {
    await publish('main', dellEvent('evt-again'), 'evt-again');
    const first = await resultOf('evt-again');
    await apps.app
      .get(RulesApplication)
      .create({ priority: 100, actions: [{ op: 'fail', args: ['no more Dells'] }] }, TEST_ACTOR);
    // A redelivery past the stream's duplicate window arrives as a new message with the same event id.
    const seq = await publish('main', dellEvent('evt-again'), 'evt-again-redelivered');
    await settled(seq);
    const all = (await results()).filter((r) => r.eventId === 'evt-again');
    expect(all).toEqual([first]);
    // A new event does see the new rule, and a fail stops the rules after it.
    await publish('main', dellEvent('evt-after'), 'evt-after');
    const after = await resultOf('evt-after');
    expect(after.failed).toBe('no more Dells');
    expect(after.node_patch).toEqual([]);
  });

  it("publishes Ironic's trait, capability and dotted-path changes as a node patch that applies to the node as it was", async () => {
    await apps.app.get(RulesApplication).create(
      {
        phase: 'preprocess',
        scope: 'traits',
        actions: [
          { op: 'add-trait', args: { name: 'CUSTOM_NEW' } },
          { op: 'remove-trait', args: { name: 'CUSTOM_OLD' } },
          { op: 'set-capability', args: { name: 'boot_mode', value: 'uefi' } },
          {
            op: 'set-attribute',
            args: { path: 'driver_info.redfish.address', value: '{inventory[bmc_address]}' },
          },
        ],
      },
      TEST_ACTOR,
    );
    const node = { uuid: 'n-traits', traits: ['CUSTOM_OLD'] };
    await publish('preprocess', {
      id: 'evt-traits',
      node,
      inventory: { bmc_address: '192.0.2.77' },
      scope: 'traits',
    });
    const result = await resultOf('evt-traits');
    expect(result.failed).toBeUndefined();
    expect(result.node_patch).toEqual([
      { op: 'add', path: '/traits', value: ['CUSTOM_OLD', 'CUSTOM_NEW'] },
      { op: 'add', path: '/traits', value: ['CUSTOM_NEW'] },
      { op: 'add', path: '/properties', value: {} },
      { op: 'add', path: '/properties/capabilities', value: 'boot_mode:uefi' },
      { op: 'add', path: '/driver_info', value: {} },
      { op: 'add', path: '/driver_info/redfish', value: {} },
      { op: 'add', path: '/driver_info/redfish/address', value: '192.0.2.77' },
    ]);
    expect(applyJsonPatch(node, result.node_patch)).toEqual({
      uuid: 'n-traits',
      traits: ['CUSTOM_NEW'],
      properties: { capabilities: 'boot_mode:uefi' },
      driver_info: { redfish: { address: '192.0.2.77' } },
    });
  });

  it('runs early rules without a node', async () => {
    await apps.app.get(RulesApplication).create(
      {
        phase: 'early',
        actions: [
          { op: 'set-plugin-data', args: ['/vendor', '{inventory[system_vendor][manufacturer]}'] },
        ],
      },
      TEST_ACTOR,
    );
    await publish('early', {
      id: 'evt-early',
      inventory: { system_vendor: { manufacturer: 'HPE' } },
    });
    const result = await resultOf('evt-early');
    expect(result).toMatchObject({
      phase: 'early',
      node_uuid: null,
      plugin_data: { vendor: 'HPE' },
      node_patch: [],
    });
  });

  it('dead-letters malformed events with the reason, and keeps consuming', async () => {
    await publish('main', 'not json {');
    await publish('main', { node: {}, ports: 'nope' });
    // Bad UTF-8 in an id: not read as U+FFFD (which would make two ids one).
    await publish(
      'main',
      Buffer.concat([Buffer.from('{"id":"evt-'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
    );
    // NUL in an id: refused up front, rather than failing to store five times.
    await publish('main', { id: 'evt-\u0000' });
    const letters = await eventually(
      async () => {
        const jsm = await nc.jetstreamManager();
        const info = await jsm.streams
          .info(ns.stream(DEAD_LETTER_STREAM.name))
          .catch(() => undefined);
        if (!info || info.state.messages < 4) return undefined;
        const reasons: string[] = [];
        for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
          const stored = await jsm.streams.getMessage(ns.stream(DEAD_LETTER_STREAM.name), { seq });
          reasons.push(stored.header.get(DEAD_LETTER_REASON_HEADER));
        }
        return reasons;
      },
      { what: 'two dead letters' },
    );
    expect(letters[0]).toBe('inspection event is not JSON');
    expect(letters[1]).toMatch(/invalid inspection event: .*id.*ports/);
    expect(letters[2]).toBe('inspection event is not UTF-8');
    expect(letters[3]).toBe('invalid inspection event: id: must not contain control characters');
    await publish('main', { ...dellEvent('evt-later'), node: { auto_discovered: false } });
    expect((await resultOf('evt-later')).eventId).toBe('evt-later');
  });
});
