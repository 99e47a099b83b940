import { eventually } from '@rollout/testing/kit';
import {
  BUILT_IN_UUID,
  DISCOVERY_RULE,
  Rule,
  inspectionRulesSystem,
} from '../../test/inspection-rules-system';

describe('sensitive inspection rules through the gateway', () => {
  const system = inspectionRulesSystem();
  const { call, create } = system;

  let uuid: string;

  beforeAll(async () => {
    await call('DELETE', '/v1/inspection_rules');
    const created = await create(DISCOVERY_RULE);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ sensitive: true, conditions: null, actions: null });
    uuid = created.body.uuid;
  });

  it('never return conditions or actions: get, list with detail, patch', async () => {
    expect((await call('GET', `/v1/inspection_rules/${uuid}`)).body).toMatchObject({
      conditions: null,
      actions: null,
    });
    const list = (await call('GET', '/v1/inspection_rules?detail=true')).body
      .inspection_rules as Rule[];
    expect(list.find((r) => r.uuid === uuid)).toMatchObject({ conditions: null, actions: null });
    const patched = await call('PATCH', `/v1/inspection_rules/${uuid}`, [
      { op: 'replace', path: '/priority', value: 3 },
    ]);
    expect(patched.body).toMatchObject({ priority: 3, conditions: null, actions: null });
    expect(JSON.stringify(list)).not.toContain('pa$$w0rd');
  });

  it('cannot be made non-sensitive (400), and a patch can neither read nor echo their content', async () => {
    const response = await call('PATCH', `/v1/inspection_rules/${uuid}`, [
      { op: 'replace', path: '/sensitive', value: false },
    ]);
    expect(response.status).toBe(400);
    expect(response.fault?.faultstring).toMatch(
      /sensitive: a sensitive rule cannot be made non-sensitive/,
    );
    for (const patch of [
      // `test` answers yes or no about a value: an oracle.
      [{ op: 'test', path: '/actions/3/args/1', value: 'pa$$w0rd' }],
      [{ op: 'copy', from: '/actions/3/args/1', path: '/description' }],
      [{ op: 'move', from: '/actions/3/args/1', path: '/actions/0/op' }],
      [{ op: 'remove', path: '/actions/9' }],
    ]) {
      const probe = await call('PATCH', `/v1/inspection_rules/${uuid}`, patch);
      expect(probe.status).toBe(400);
      expect(JSON.stringify(probe.body)).not.toMatch(/pa\$\$w0rd|ipmi_password|auto_discovered/);
    }
    expect((await call('GET', `/v1/inspection_rules/${uuid}`)).body.description).toBe(
      'Initialize freshly discovered nodes',
    );
  });

  it(':evaluate runs the seed example and hides the sensitive values', async () => {
    const response = await call('POST', '/v1/inspection_rules:evaluate', {
      phase: 'main',
      scope: 'lab',
      node: { uuid: 'node-1', auto_discovered: true, driver_info: {} },
      plugin_data: { bmc_address: '192.0.2.10' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      matched_rules: [
        { uuid: BUILT_IN_UUID, description: 'built-in tagger' },
        { uuid, description: 'Initialize freshly discovered nodes' },
      ],
      node_patch: [
        { op: 'add', path: '/driver', value: '***' },
        { op: 'add', path: '/driver_info/ipmi_address', value: '***' },
        { op: 'add', path: '/driver_info/ipmi_username', value: '***' },
        { op: 'add', path: '/driver_info/ipmi_password', value: '***' },
      ],
      port_patches: {},
      plugin_data: { bmc_address: '192.0.2.10', tagged: true },
      failure: null,
    });
  });

  it('their run errors are short and hold no values', async () => {
    await create({
      sensitive: true,
      priority: 1,
      actions: [
        {
          op: 'set-attribute',
          args: ['/driver_info/ipmi_password', '{plugin_data[vault][secret_pw]}'],
        },
      ],
    });
    const response = await call('POST', '/v1/inspection_rules:evaluate', {
      scope: 'lab',
      node: { auto_discovered: false },
    });
    expect(response.body.failure).toMatch(
      /^Rule [0-9a-f-]{36} failed at actions\[\d+\] \([a-z-]+\)\.$/,
    );
    const failing = await create({
      sensitive: true,
      priority: 2,
      actions: [{ op: 'fail', args: ['BMC password calvin is wrong'] }],
    });
    const failed = await call('POST', '/v1/inspection_rules:evaluate', { scope: 'lab', node: {} });
    expect(failed.body.failure).toBe(`Inspection failed by rule ${failing.body.uuid}.`);
  });

  it('never put their values in the logs', async () => {
    await call('DELETE', '/v1/inspection_rules');
    await create(DISCOVERY_RULE);
    await create({
      sensitive: true,
      actions: [{ op: 'log', args: ['the password is pa$$w0rd', 'warning'] }],
    });
    await create({
      description: 'loud',
      actions: [{ op: 'log', args: ['plain message from a rule that is not sensitive'] }],
    });
    // Runs last (same priority, created last), and fails.
    await create({
      sensitive: true,
      actions: [{ op: 'set-attribute', args: ['/x', '{plugin_data[calvin_secret_path]}'] }],
    });
    const response = await call('POST', '/v1/inspection_rules:evaluate', {
      scope: 'lab',
      node: { uuid: 'node-1', auto_discovered: true, driver_info: {} },
      plugin_data: { bmc_address: '192.0.2.10' },
    });
    expect(response.body.failure).toMatch(
      /^Rule [0-9a-f-]{36} failed at actions\[\d+\] \([a-z-]+\)\.$/,
    );
    await call('POST', '/v1/inspection_rules:evaluate', { scope: 'lab', node: {} });
    // The rules did log (so the logs are being read), with the sensitive rule's message hidden.
    await eventually(
      async () =>
        system.logs().includes('plain message from a rule that is not sensitive')
          ? true
          : undefined,
      {
        what: 'the rule log line',
      },
    );
    expect(system.logs()).toContain('logged a message (hidden: the rule is sensitive)');
    expect(system.logs()).not.toMatch(/pa\$\$w0rd|calvin_secret_path/);
  });
});
