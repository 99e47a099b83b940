import { applyJsonPatch } from '@rollout/domain/inspection';
import { TEST_ACTOR, dellEvent } from '../../test/inspection-event-stream';
import { inspectionRulesServiceSystem } from '../../test/inspection-rules-service-system';
import { RuleCommands } from '../rules/rule-commands.application';

describe("given the seed's rules, when inspection events arrive, then their results say what the rules did", () => {
  const stream = inspectionRulesServiceSystem();

  it("runs the seed's Dell example on an event and publishes its node changes", async () => {
    await stream.publish('main', dellEvent('evt-dell'), 'evt-dell');
    const result = await stream.resultOf('evt-dell');
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
    await stream.publish('main', {
      id: 'evt-discovered',
      node: { uuid: 'node-new', auto_discovered: true, driver_info: {} },
      inventory: { system_vendor: { manufacturer: 'Supermicro' } },
      plugin_data: { bmc_address: '192.0.2.10' },
    });
    expect(await stream.resultOf('evt-discovered')).toMatchObject({
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
    await stream.publish('main', {
      ...dellEvent('evt-both'),
      plugin_data: { bmc_address: '192.0.2.11' },
    });
    const both = await stream.resultOf('evt-both');
    expect(both.matched_rules.map((r) => r.description)).toEqual([
      'Initialize freshly discovered nodes',
      'Initialize Dell nodes using IPv6',
    ]);
    expect(both.node_patch[0]).toEqual({ op: 'add', path: '/driver', value: 'ipmi' });
    expect(both.node_patch[4]).toEqual({ op: 'add', path: '/driver', value: 'idrac' });
    // A node that was not discovered is left alone.
    await stream.publish('main', {
      ...dellEvent('evt-known'),
      node: { uuid: 'node-known', auto_discovered: false },
    });
    expect(await stream.resultOf('evt-known')).toMatchObject({ matched_rules: [], node_patch: [] });
  });

  it('applies scoped rules to events of that scope only, and stores events whose data holds NUL characters', async () => {
    await stream.apps.app.get(RuleCommands).create(
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
    await stream.publish('preprocess', {
      id: 'evt-rack-7',
      node: { uuid: 'n7' },
      inventory,
      scope: 'rack-7',
    });
    await stream.publish('preprocess', {
      id: 'evt-rack-8',
      node: { uuid: 'n8' },
      inventory,
      scope: 'rack-8',
    });
    expect((await stream.resultOf('evt-rack-7')).plugin_data).toEqual({ serial: 'S1\u0000\u0000' });
    expect(await stream.resultOf('evt-rack-8')).toMatchObject({
      phase: 'preprocess',
      matched_rules: [],
      plugin_data: {},
    });
  });

  it("publishes Ironic's trait, capability and dotted-path changes as a node patch that applies to the node as it was", async () => {
    await stream.apps.app.get(RuleCommands).create(
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
    await stream.publish('preprocess', {
      id: 'evt-traits',
      node,
      inventory: { bmc_address: '192.0.2.77' },
      scope: 'traits',
    });
    const result = await stream.resultOf('evt-traits');
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
    await stream.apps.app.get(RuleCommands).create(
      {
        phase: 'early',
        actions: [
          { op: 'set-plugin-data', args: ['/vendor', '{inventory[system_vendor][manufacturer]}'] },
        ],
      },
      TEST_ACTOR,
    );
    await stream.publish('early', {
      id: 'evt-early',
      inventory: { system_vendor: { manufacturer: 'HPE' } },
    });
    const result = await stream.resultOf('evt-early');
    expect(result).toMatchObject({
      phase: 'early',
      node_uuid: null,
      plugin_data: { vendor: 'HPE' },
      node_patch: [],
    });
  });
});
