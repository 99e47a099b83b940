import { fullView, publicView, RuleSet } from './engine';
import { MaskSecrets } from './masking';
import { rule } from '../test/rule-factory';
import type { RuleDefinition } from './rule';

const run = (
  rules: RuleDefinition[],
  data: Parameters<RuleSet['run']>[1],
  phase: 'early' | 'preprocess' | 'main' = 'main',
  maskSecrets: MaskSecrets = 'always',
) => new RuleSet(rules, { maskSecrets }).run(phase, data);

describe("the seed's examples", () => {
  const discovered = rule({
    description: 'Initialize freshly discovered nodes',
    sensitive: true,
    conditions: [
      { op: 'is-true', args: ['{node.auto_discovered}'] },
      { op: '!is-empty', args: ['{plugin_data[bmc_address]}'] },
    ],
    actions: [
      { op: 'set-attribute', args: ['/driver', 'ipmi'] },
      { op: 'set-attribute', args: ['/driver_info/ipmi_address', '{plugin_data[bmc_address]}'] },
      { op: 'set-attribute', args: ['/driver_info/ipmi_username', 'admin'] },
      { op: 'set-attribute', args: ['/driver_info/ipmi_password', 'pa$$w0rd'] },
    ],
  });
  const dell = rule({
    description: 'Initialize Dell nodes using IPv6',
    sensitive: true,
    conditions: [
      { op: 'is-true', args: ['{node.auto_discovered}'] },
      { op: 'contains', args: ['{inventory[system_vendor][manufacturer]}', '(?i)dell'] },
    ],
    actions: [
      { op: 'set-attribute', args: ['/driver', 'idrac'] },
      {
        op: 'set-attribute',
        args: ['/driver_info/redfish_address', 'https://{inventory[bmc_v6address]}'],
      },
      { op: 'set-attribute', args: ['/driver_info/redfish_username', 'root'] },
      { op: 'set-attribute', args: ['/driver_info/redfish_password', 'calvin'] },
    ],
  });

  it('initialises a freshly discovered node with its BMC address', () => {
    const result = run([discovered], {
      node: { uuid: 'n1', auto_discovered: true, driver_info: {} },
      plugin_data: { bmc_address: '192.0.2.10' },
    });
    expect(result.failure).toBeNull();
    expect(fullView(result).node_patch).toEqual([
      { op: 'add', path: '/driver', value: 'ipmi' },
      { op: 'add', path: '/driver_info/ipmi_address', value: '192.0.2.10' },
      { op: 'add', path: '/driver_info/ipmi_username', value: 'admin' },
      { op: 'add', path: '/driver_info/ipmi_password', value: 'pa$$w0rd' },
    ]);
  });

  it('leaves a discovered node without a BMC address, or a node not discovered, alone', () => {
    expect(run([discovered], { node: { auto_discovered: true }, plugin_data: {} }).matched).toEqual(
      [],
    );
    expect(
      run([discovered], {
        node: { auto_discovered: false },
        plugin_data: { bmc_address: '192.0.2.10' },
      }).matched,
    ).toEqual([]);
  });

  it('initialises a discovered Dell node over IPv6', () => {
    const result = run([dell], {
      node: { auto_discovered: 'True' },
      inventory: { system_vendor: { manufacturer: 'Dell Inc.' }, bmc_v6address: '2001:db8::10' },
    });
    expect(fullView(result).node_patch).toEqual([
      { op: 'add', path: '/driver', value: 'idrac' },
      // The node has no driver_info: the patch creates it, so it applies to the node as it was.
      { op: 'add', path: '/driver_info', value: {} },
      { op: 'add', path: '/driver_info/redfish_address', value: 'https://2001:db8::10' },
      { op: 'add', path: '/driver_info/redfish_username', value: 'root' },
      { op: 'add', path: '/driver_info/redfish_password', value: 'calvin' },
    ]);
  });

  it('skips other vendors', () => {
    const result = run([dell], {
      node: { auto_discovered: true },
      inventory: { system_vendor: { manufacturer: 'HPE' } },
    });
    expect(result.matched).toEqual([]);
  });

  it('hides what these sensitive rules wrote from people, but not from the machinery', () => {
    const result = run([dell], {
      node: { auto_discovered: true },
      inventory: { system_vendor: { manufacturer: 'Dell' }, bmc_v6address: '2001:db8::10' },
    });
    expect(JSON.stringify(publicView(result))).not.toMatch(/calvin|2001:db8/);
    expect(publicView(result).node_patch[4]).toEqual({
      op: 'add',
      path: '/driver_info/redfish_password',
      value: '***',
    });
    expect(JSON.stringify(fullView(result))).toMatch(/calvin/);
  });
});

describe('actions', () => {
  const node = { uuid: 'n1', driver: 'ipmi', extra: { tags: ['a'] }, properties: { cpus: 4 } };
  const ports = [
    { uuid: 'p1', address: 'AA:BB:CC:DD:EE:01', extra: {} },
    { uuid: 'p2', address: 'aa:bb:cc:dd:ee:02', extra: { tags: ['x'] } },
  ];

  it('set, extend (unique) and delete node attributes, each seen by later actions', () => {
    const result = run(
      [
        rule({
          actions: [
            { op: 'set-attribute', args: ['/extra/seen', true] },
            { op: 'extend-attribute', args: ['/extra/tags', 'b'] },
            { op: 'extend-attribute', args: { path: '/extra/tags', value: 'a', unique: true } },
            { op: 'del-attribute', args: ['/properties/cpus'] },
            { op: 'set-attribute', args: ['/extra/copy', '{node.extra[tags]}'] },
          ],
        }),
      ],
      { node },
    );
    expect(result.failure).toBeNull();
    expect(fullView(result).node_patch).toEqual([
      { op: 'add', path: '/extra/seen', value: true },
      { op: 'add', path: '/extra/tags', value: ['a', 'b'] },
      { op: 'add', path: '/extra/tags', value: ['a', 'b'] },
      { op: 'remove', path: '/properties/cpus' },
      { op: 'add', path: '/extra/copy', value: ['a', 'b'] },
    ]);
  });

  it('del-attribute of an unknown node field is an error naming it', () => {
    const result = run([rule({ actions: [{ op: 'del-attribute', args: ['/nonsense/x'] }] })], {
      node,
    });
    expect(result.failure).toMatch(/node has no attribute \/nonsense/);
  });

  it('port actions find ports by MAC (any case) or uuid', () => {
    const result = run(
      [
        rule({
          actions: [
            { op: 'set-port-attribute', args: ['aa:bb:cc:dd:ee:01', '/pxe_enabled', true] },
            { op: 'extend-port-attribute', args: ['p2', '/extra/tags', 'y'] },
            { op: 'del-port-attribute', args: ['AA:BB:CC:DD:EE:02', '/extra/tags'] },
          ],
        }),
      ],
      { node, ports },
    );
    expect(fullView(result).port_patches).toEqual({
      p1: [{ op: 'add', path: '/pxe_enabled', value: true }],
      p2: [
        { op: 'add', path: '/extra/tags', value: ['x', 'y'] },
        { op: 'remove', path: '/extra/tags' },
      ],
    });
    const missing = run(
      [rule({ actions: [{ op: 'set-port-attribute', args: ['ff:ff:ff:ff:ff:ff', '/x', 1] }] })],
      { node, ports },
    );
    expect(missing.failure).toMatch(/no port ff:ff:ff:ff:ff:ff/);
  });

  it('plugin data actions set, extend and unset, creating dicts on the way', () => {
    const result = run(
      [
        rule({
          actions: [
            { op: 'set-plugin-data', args: ['/a/b', 1] },
            { op: 'extend-plugin-data', args: ['list', 'x'] },
            { op: 'extend-plugin-data', args: { path: 'list', value: 'x', unique: true } },
            { op: 'extend-plugin-data', args: ['list', 'x'] },
            { op: 'unset-plugin-data', args: ['/old'] },
            { op: 'unset-plugin-data', args: ['/never'] },
          ],
        }),
      ],
      { node, plugin_data: { old: 1, keep: 2 } },
    );
    expect(result.pluginData).toEqual({ a: { b: 1 }, list: ['x', 'x'], keep: 2 });
  });

  it('log records the message at its level', () => {
    const result = run(
      [rule({ actions: [{ op: 'log', args: ['cpus={node.properties[cpus]}', 'warning'] }] })],
      { node },
    );
    expect(result.logs).toEqual([
      { level: 'warning', rule: expect.any(String), message: 'cpus=4' },
    ]);
  });

  it('fail stops the remaining actions and rules', () => {
    const result = run(
      [
        rule({
          priority: 2,
          actions: [
            { op: 'fail', args: ['too few CPUs'] },
            { op: 'set-plugin-data', args: ['/a', 1] },
          ],
        }),
        rule({ priority: 1, actions: [{ op: 'set-plugin-data', args: ['/b', 1] }] }),
      ],
      { node },
    );
    expect(result.failure).toBe('too few CPUs');
    expect(result.pluginData).toEqual({});
    expect(result.matched).toHaveLength(1);
  });

  it('a missing key in an action is an error naming the rule and the path', () => {
    const bad = rule({
      description: 'copy BMC',
      actions: [{ op: 'set-attribute', args: ['/driver_info/x', '{plugin_data[bmc][v4]}'] }],
    });
    const result = run([bad, rule({ actions: [{ op: 'set-plugin-data', args: ['/after', 1] }] })], {
      node,
    });
    expect(result.failure).toBe(
      `Rule ${bad.uuid} (copy BMC) failed at actions[0] (set-attribute): {plugin_data[bmc][v4]} does not exist`,
    );
    expect(result.pluginData).toEqual({});
  });

  it('an action loop runs once per item', () => {
    const result = run(
      [
        rule({
          actions: [
            {
              op: 'extend-plugin-data',
              args: ['/macs', '{item[mac_address]}'],
              loop: '{inventory[interfaces]}',
            },
          ],
        }),
      ],
      { node, inventory: { interfaces: [{ mac_address: 'm1' }, { mac_address: 'm2' }] } },
    );
    expect(result.pluginData).toEqual({ macs: ['m1', 'm2'] });
  });
});

describe('hostile and unlucky rules', () => {
  it('an action looping over the list it extends runs once per item the list had', () => {
    const result = run(
      [
        rule({
          actions: [
            { op: 'set-plugin-data', args: ['/list/-', '{item}'], loop: '{plugin_data[list]}' },
          ],
        }),
      ],
      { node: {}, plugin_data: { list: [1, 2] } },
    );
    expect(result.failure).toBeNull();
    expect(result.pluginData).toEqual({ list: [1, 2, 1, 2] });
  });

  it('{item} exists only inside the loop that sets it', () => {
    const result = run(
      [
        rule({
          conditions: [
            { op: 'is-true', args: ['{item}'], loop: [true] },
            { op: 'is-none', args: ['{item}'] },
          ],
          actions: [
            { op: 'log', args: ['{item}'], loop: ['a'] },
            { op: 'set-plugin-data', args: ['/x', '{item}'] },
          ],
        }),
      ],
      { node: {} },
    );
    expect(result.matched).toHaveLength(1);
    expect(result.failure).toMatch(/\{item\} does not exist/);
  });

  it('a regex taken from the data (in a loop, where Ironic formats it) is checked when it runs', () => {
    const contains = (pattern: string, value = 'aaaa') =>
      run(
        [
          rule({
            conditions: [
              { op: 'contains', args: ['{inventory[v]}', '{plugin_data[re]}'], loop: [1] },
            ],
            actions: [{ op: 'log', args: ['x'] }],
          }),
        ],
        {
          node: {},
          inventory: { v: value },
          plugin_data: { re: pattern },
        },
      );
    expect(contains('(a+)+$').failure).toMatch(/catastrophic backtracking/);
    expect(contains('^a+$').matched).toHaveLength(1);
    expect(contains('.*a.*b', 'a'.repeat(5000)).failure).toMatch(
      /a value of 5000 characters is too long for this regex/,
    );
  });

  it('a __proto__ key in the data or the arguments stays plain data', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "password": "p"}');
    const result = run(
      [
        rule({
          actions: [
            { op: 'set-plugin-data', args: ['/copy', '{inventory[v]}'] },
            { op: 'set-plugin-data', args: ['/literal', value] },
          ],
        }),
      ],
      {
        node: {},
        inventory: { v: value },
      },
    );
    const copy = result.pluginData.copy as Record<string, unknown>;
    expect(Object.keys(copy)).toEqual(['__proto__', 'password']);
    expect(copy.password).toBe('***');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const literal = result.pluginData.literal as Record<string, unknown>;
    expect(Object.keys(literal)).toEqual(['__proto__', 'password']);
    expect(literal.polluted).toBeUndefined();
  });

  it('a log level that does not exist is a rule error', () => {
    expect(
      run([rule({ actions: [{ op: 'log', args: ['x', 'loud'] }] })], { node: {} }).failure,
    ).toMatch(/log level must be one of/);
  });
});

describe('interpolation', () => {
  const inventory = {
    interfaces: [{ name: 'eth0', mac_address: '11:22' }],
    disks: [{ size: 10 }, { size: 20 }],
    meta: { a: { b: 'c' } },
  };

  it('resolves nested lookups inside strings and passes whole lists and dicts through', () => {
    const result = run(
      [
        rule({
          actions: [
            {
              op: 'set-plugin-data',
              args: [
                '/mac',
                'mac={inventory[interfaces][0][mac_address]} on {inventory[interfaces][0][name]}',
              ],
            },
            { op: 'set-plugin-data', args: ['/disks', '{inventory[disks]}'] },
            { op: 'set-plugin-data', args: ['/meta', '{inventory[meta]}'] },
            { op: 'set-plugin-data', args: ['/size', '{inventory[disks][1][size]}'] },
            { op: 'set-plugin-data', args: ['/braces', '{{literal}}'] },
            { op: 'set-plugin-data', args: ['/embedded', 'list={inventory[disks]}'] },
          ],
        }),
      ],
      { node: {}, inventory },
    );
    expect(result.pluginData).toEqual({
      mac: 'mac=11:22 on eth0',
      disks: [{ size: 10 }, { size: 20 }],
      meta: { a: { b: 'c' } },
      size: 20,
      braces: '{literal}',
      // Inside text a value reads as Python's str.format writes it.
      embedded: "list=[{'size': 10}, {'size': 20}]",
    });
  });

  it('reads nothing inherited and runs nothing: prototype names are just missing keys', () => {
    const result = run(
      [
        rule({
          conditions: [
            { op: 'is-none', args: ['{inventory[constructor]}'] },
            { op: 'is-none', args: ['{inventory[__proto__]}'] },
          ],
          actions: [{ op: 'log', args: ['ok'] }],
        }),
      ],
      { node: {}, inventory: {} },
    );
    expect(result.matched).toHaveLength(1);
  });
});

describe('secret masking', () => {
  const node = {
    driver_info: { ipmi_password: 'hunter2', ipmi_address: '10.0.0.1' },
    extra: { api_token: 't0k' },
  };
  const copy = (sensitive: boolean) =>
    rule({
      sensitive,
      actions: [
        { op: 'set-plugin-data', args: ['/pw', '{node.driver_info[ipmi_password]}'] },
        { op: 'set-plugin-data', args: ['/tok', '{node.extra[api_token]}'] },
        { op: 'set-plugin-data', args: ['/inv', '{inventory[bmc][Secret]}'] },
        { op: 'set-plugin-data', args: ['/addr', '{node.driver_info[ipmi_address]}'] },
        { op: 'set-plugin-data', args: ['/pd', '{plugin_data[vault]}'] },
        { op: 'set-plugin-data', args: ['/whole', 'node={node}'] },
      ],
    });
  const data = {
    node,
    inventory: { bmc: { Secret: 's' } },
    plugin_data: { vault: { token: 'v' } },
  };

  it('always (default): secrets at any depth read ***', () => {
    const { pluginData } = run([copy(true)], data, 'main', 'always');
    expect(pluginData).toMatchObject({
      pw: '***',
      tok: '***',
      inv: '***',
      addr: '10.0.0.1',
      pd: { token: '***' },
    });
    expect(pluginData.whole).toContain("'ipmi_password': '***'");
    expect(JSON.stringify(pluginData)).not.toMatch(/hunter2|t0k/);
  });

  it('never: rules see everything', () => {
    expect(run([copy(false)], data, 'main', 'never').pluginData).toMatchObject({
      pw: 'hunter2',
      tok: 't0k',
      inv: 's',
    });
  });

  it('sensitive: only sensitive rules see secrets', () => {
    expect(run([copy(true)], data, 'main', 'sensitive').pluginData).toMatchObject({
      pw: 'hunter2',
    });
    expect(run([copy(false)], data, 'main', 'sensitive').pluginData).toMatchObject({ pw: '***' });
  });

  it('a sensitive rule fails with a short message and logs nothing revealing', () => {
    const broken = rule({
      sensitive: true,
      actions: [
        { op: 'log', args: ['pw is hunter2'] },
        { op: 'set-attribute', args: ['/x', '{node[missing_secret_path]}'] },
      ],
    });
    const result = run([broken], data);
    // It names the check that failed, never a value.
    expect(result.failure).toBe(`Rule ${broken.uuid} failed at actions[1] (set-attribute).`);
    expect(JSON.stringify(result.logs)).not.toMatch(/hunter2/);
    const failing = rule({
      sensitive: true,
      actions: [{ op: 'fail', args: ['bad password hunter2'] }],
    });
    expect(run([failing], data).failure).toBe(`Inspection failed by rule ${failing.uuid}.`);
  });

  it('plugin data written by a sensitive rule reads *** over HTTP', () => {
    const result = run(
      [
        rule({
          sensitive: true,
          actions: [{ op: 'set-plugin-data', args: ['/bmc/password', 'p'] }],
        }),
      ],
      { node: {}, plugin_data: { other: 1 } },
    );
    expect(publicView(result).plugin_data).toEqual({ other: 1, bmc: { password: '***' } });
    expect(fullView(result).plugin_data).toEqual({ other: 1, bmc: { password: 'p' } });
  });
});

describe('phases, scopes and ordering', () => {
  it('runs only the phase asked for; early rules see inventory and plugin data only', () => {
    const early = rule({
      phase: 'early',
      actions: [{ op: 'set-plugin-data', args: ['/early', '{inventory[cpu]}'] }],
    });
    const main = rule({ actions: [{ op: 'set-plugin-data', args: ['/main', true] }] });
    expect(
      run([early, main], { node: { a: 1 }, inventory: { cpu: 'x86' } }, 'early').pluginData,
    ).toEqual({ early: 'x86' });
    expect(run([early, main], { node: { a: 1 } }, 'main').pluginData).toEqual({ main: true });
    expect(run([early, main], { node: { a: 1 } }, 'preprocess').matched).toEqual([]);
  });

  it('a scoped rule applies only to nodes of that scope', () => {
    const scoped = rule({ scope: 'rack-1', actions: [{ op: 'set-plugin-data', args: ['/s', 1] }] });
    expect(run([scoped], { node: {}, scope: 'rack-1' }).matched).toHaveLength(1);
    expect(run([scoped], { node: {}, scope: 'rack-2' }).matched).toHaveLength(0);
    expect(run([scoped], { node: {} }).matched).toHaveLength(0);
  });

  it('higher priority first, then creation order; built-ins sort by priority with the others', () => {
    const mark = (name: string) => [{ op: 'extend-plugin-data', args: ['/order', name] }];
    const a = rule({ priority: 0, actions: mark('a') });
    const b = rule({ priority: 5, actions: mark('b') });
    const c = rule({ priority: 0, actions: mark('c') });
    const builtInLow = rule({ priority: -1, built_in: true, actions: mark('builtin-low') });
    const builtInHigh = rule({ priority: 10000, built_in: true, actions: mark('builtin-high') });
    const result = run([c, builtInLow, a, builtInHigh, b].reverse(), { node: {} });
    expect(result.pluginData.order).toEqual(['builtin-high', 'b', 'a', 'c', 'builtin-low']);
  });
});

describe('what later rules see', () => {
  it('a value unset by one rule is gone for the next one, masked or not', () => {
    const result = run(
      [
        rule({ priority: 2, actions: [{ op: 'unset-plugin-data', args: ['/gone'] }] }),
        rule({
          priority: 1,
          conditions: [{ op: 'is-none', args: ['{plugin_data[gone]}'] }],
          actions: [{ op: 'set-plugin-data', args: ['/saw_it_gone', true] }],
        }),
      ],
      { node: {}, plugin_data: { gone: 1 } },
    );
    expect(result.pluginData).toEqual({ saw_it_gone: true });
  });

  it('the same condition in a later rule is evaluated again after a change', () => {
    const once = { op: 'is-none', args: ['{plugin_data[done]}'] };
    const result = run(
      [
        rule({
          priority: 2,
          conditions: [once],
          actions: [{ op: 'set-plugin-data', args: ['/done', 1] }],
        }),
        rule({
          priority: 1,
          conditions: [once],
          actions: [{ op: 'set-plugin-data', args: ['/done', 2] }],
        }),
      ],
      { node: {} },
    );
    expect(result.pluginData).toEqual({ done: 1 });
    expect(result.matched).toHaveLength(1);
  });

  it('a node change by one rule is seen by the next one', () => {
    const result = run(
      [
        rule({ priority: 2, actions: [{ op: 'set-attribute', args: ['/driver', 'redfish'] }] }),
        rule({
          priority: 1,
          conditions: [{ op: 'eq', args: ['{node.driver}', 'redfish'] }],
          actions: [{ op: 'set-plugin-data', args: ['/ok', true] }],
        }),
      ],
      { node: { driver: 'ipmi' } },
    );
    expect(result.pluginData).toEqual({ ok: true });
  });
});
