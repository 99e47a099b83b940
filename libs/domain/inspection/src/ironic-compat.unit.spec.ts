import type { InspectionData, InspectionRuleStep } from '@rollout/contracts';
import { fullView, RuleSet } from './engine';
import { applyJsonPatch } from './json-pointer';
import { validateRule } from './rule-validation';
import { rule } from '../test/rule-factory';

/** The behaviours of Ironic's rule engine (ironic/common/inspection_rules) a migrated rule relies on. */

const run = (
  actions: InspectionRuleStep[],
  data: InspectionData,
  conditions: InspectionRuleStep[] = [],
) => new RuleSet([rule({ actions, conditions })], { maskSecrets: 'always' }).run('main', data);

const holds = (condition: InspectionRuleStep, data: InspectionData = {}) => {
  const result = run([{ op: 'log', args: ['hit'] }], { node: {}, ...data }, [condition]);
  if (result.failure) throw new Error(result.failure);
  return result.matched.length === 1;
};

const refusal = (input: unknown) => {
  try {
    validateRule(input);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the rule to be refused');
};

describe('node attribute paths, as Ironic reads them', () => {
  it.each([
    '/driver_info/ipmi_address',
    'driver_info/ipmi_address',
    'driver_info.ipmi_address',
    '/driver_info/ipmi_address/',
  ])('%s names driver_info.ipmi_address', (path) => {
    const result = run([{ op: 'set-attribute', args: { path, value: '192.0.2.1' } }], {
      node: { driver_info: {} },
    });
    expect(fullView(result).node_patch).toEqual([
      { op: 'add', path: '/driver_info/ipmi_address', value: '192.0.2.1' },
    ]);
  });

  it('splits on slashes when there is one: a dot is then part of the key', () => {
    const result = run([{ op: 'set-attribute', args: ['/extra/a.b', 1] }], { node: { extra: {} } });
    expect(fullView(result).node_patch).toEqual([{ op: 'add', path: '/extra/a.b', value: 1 }]);
  });

  it('creates missing parents explicitly: the patch applies cleanly to the node as it was', () => {
    const node = { uuid: 'n1', properties: { cpus: 4 } };
    const result = run(
      [
        { op: 'set-attribute', args: ['driver_info.redfish.address', 'https://bmc'] },
        { op: 'extend-attribute', args: ['/extra/tags', 'a'] },
        { op: 'set-attribute', args: ['/driver_info/redfish/user', 'root'] },
      ],
      { node },
    );
    const patch = fullView(result).node_patch;
    expect(patch).toEqual([
      { op: 'add', path: '/driver_info', value: {} },
      { op: 'add', path: '/driver_info/redfish', value: {} },
      { op: 'add', path: '/driver_info/redfish/address', value: 'https://bmc' },
      { op: 'add', path: '/extra', value: {} },
      { op: 'add', path: '/extra/tags', value: ['a'] },
      { op: 'add', path: '/driver_info/redfish/user', value: 'root' },
    ]);
    expect(applyJsonPatch(node, patch)).toEqual({
      uuid: 'n1',
      properties: { cpus: 4 },
      driver_info: { redfish: { address: 'https://bmc', user: 'root' } },
      extra: { tags: ['a'] },
    });
  });

  it('keeps field types: a string field cannot become a dict, a dict field cannot become a string', () => {
    expect(
      run([{ op: 'set-attribute', args: ['/driver', { name: 'ipmi' }] }], {
        node: { driver: 'ipmi' },
      }).failure,
    ).toMatch(/A string is required in field driver, not a dict/);
    expect(
      run([{ op: 'set-attribute', args: ['/properties', 'none'] }], { node: { properties: {} } })
        .failure,
    ).toMatch(/node \/properties is a dict: it cannot be set to a string/);
    expect(
      run([{ op: 'set-attribute', args: ['/driver/x', 1] }], { node: { driver: 'ipmi' } }).failure,
    ).toMatch(/node \/driver is a string, not a dict/);
  });

  const setOn = (path: string, value: unknown, node: Record<string, unknown> = { uuid: 'n1' }) => {
    const result = run([{ op: 'set-attribute', args: { path, value } }], { node });
    return result.failure ?? fullView(result).node_patch;
  };

  it.each([
    [false, 'False'],
    [true, 'True'],
    [5, '5'],
    [-3, '-3'],
    [1.5, '1.5'],
    [0.1, '0.1'],
    [1e-5, '1e-05'],
    [2.5e-7, '2.5e-07'],
    [1e21, '1000000000000000000000'],
    ['ipmi', 'ipmi'],
  ])('set-attribute /name of %j stores %j, as str() in oslo String.coerce', (value, stored) => {
    expect(setOn('/name', value)).toEqual([{ op: 'add', path: '/name', value: stored }]);
  });

  it.each([
    'name',
    'driver',
    'description',
    'owner',
    'lessee',
    'resource_class',
    'conductor_group',
    'boot_interface',
    'deploy_interface',
    'firmware_interface',
    'vendor_interface',
    'maintenance_reason',
    'protected_reason',
    'retired_reason',
    'last_error',
    'fault',
    'provision_state',
    'power_state',
    'boot_mode',
    'shard',
    'parent_node',
    'instance_name',
    'health',
    'reservation',
  ])('the string field %s takes a number or a boolean as Python writes it', (field) => {
    expect(setOn(`/${field}`, 7)).toEqual([{ op: 'add', path: `/${field}`, value: '7' }]);
    expect(setOn(field, false, { [field]: 'before' })).toEqual([
      { op: 'add', path: `/${field}`, value: 'False' },
    ]);
  });

  it('a string field takes null (it is nullable), and refuses a dict or a list as oslo does', () => {
    expect(setOn('/driver', null, { driver: 'ipmi' })).toEqual([
      { op: 'add', path: '/driver', value: null },
    ]);
    expect(setOn('/driver', { a: 1 })).toMatch(/A string is required in field driver, not a dict/);
    expect(setOn('/name', ['a'])).toMatch(/A string is required in field name, not a list/);
  });

  it("coerces only the node object's own string fields: values inside dict fields and other fields keep their type", () => {
    expect(setOn('/driver_info/port', 623, { driver_info: {} })).toEqual([
      { op: 'add', path: '/driver_info/port', value: 623 },
    ]);
    expect(setOn('/extra/name', false, { extra: {} })).toEqual([
      { op: 'add', path: '/extra/name', value: false },
    ]);
    expect(setOn('/maintenance', true, { maintenance: false })).toEqual([
      { op: 'add', path: '/maintenance', value: true },
    ]);
    expect(setOn('/custom_field', 5)).toEqual([{ op: 'add', path: '/custom_field', value: 5 }]);
  });

  it('a template giving a number is stored as its text in a string field', () => {
    const result = run([{ op: 'set-attribute', args: ['/name', '{inventory[cpu][count]}'] }], {
      node: {},
      inventory: { cpu: { count: 8 } },
    });
    expect(fullView(result).node_patch).toEqual([{ op: 'add', path: '/name', value: '8' }]);
  });

  it('del-attribute of a path that does not exist is an error, as Ironic (KeyError)', () => {
    const result = run([{ op: 'del-attribute', args: ['properties.not_there'] }], {
      node: { properties: { cpus: 4 } },
    });
    expect(result.failure).toMatch(/node has no attribute \/properties\/not_there/);
    expect(
      fullView(
        run([{ op: 'del-attribute', args: ['properties.cpus'] }], {
          node: { properties: { cpus: 4 } },
        }),
      ).node_patch,
    ).toEqual([{ op: 'remove', path: '/properties/cpus' }]);
  });

  it('extend-attribute of something that is not a list is an error, null included', () => {
    expect(
      run([{ op: 'extend-attribute', args: ['/extra/tags', 'a'] }], {
        node: { extra: { tags: null } },
      }).failure,
    ).toMatch(/not a list/);
  });
});

describe('plugin data paths, split on dots as Ironic', () => {
  it('sets, extends and unsets nested values', () => {
    const result = run(
      [
        { op: 'set-plugin-data', args: ['bmc.v4', '192.0.2.1'] },
        { op: 'set-plugin-data', args: ['bmc.v6', '2001:db8::1'] },
        { op: 'extend-plugin-data', args: ['seen.macs', 'm1'] },
        { op: 'extend-plugin-data', args: { path: 'seen.macs', value: 'm1', unique: true } },
        // Ironic replaces an empty value with a new list.
        { op: 'extend-plugin-data', args: ['empty', 'x'] },
        { op: 'unset-plugin-data', args: ['bmc.v6'] },
        { op: 'unset-plugin-data', args: ['not.there'] },
      ],
      { node: {}, plugin_data: { empty: '' } },
    );
    expect(result.failure).toBeNull();
    expect(result.pluginData).toEqual({
      bmc: { v4: '192.0.2.1' },
      seen: { macs: ['m1'] },
      empty: ['x'],
    });
  });

  it('unsetting the only key of a dict removes that dict too, one level up as Ironic', () => {
    const after = (path: string, plugin_data: Record<string, unknown>) =>
      run([{ op: 'unset-plugin-data', args: [path] }], { node: {}, plugin_data }).pluginData;
    expect(after('a.b', { a: { b: 1 }, keep: 1 })).toEqual({ keep: 1 });
    expect(after('a.b', { a: { b: 1, c: 2 } })).toEqual({ a: { c: 2 } });
    expect(after('x.a.b', { x: { a: { b: 1 } } })).toEqual({ x: {} });
  });

  it('going through a list or a string is an error, as Ironic (no setdefault there)', () => {
    expect(
      run([{ op: 'set-plugin-data', args: ['l.0', 1] }], { node: {}, plugin_data: { l: [0] } })
        .failure,
    ).toMatch(/plugin data \/l is a list, not a dict/);
    expect(
      run([{ op: 'extend-plugin-data', args: ['s', 1] }], { node: {}, plugin_data: { s: 'text' } })
        .failure,
    ).toMatch(/not a list/);
  });

  it('unset-plugin-data with a/b removes the nested key when there is no key named a/b', () => {
    const after = run([{ op: 'unset-plugin-data', args: ['a/b'] }], {
      node: {},
      plugin_data: { a: { b: 1, c: 2 }, d: 3 },
    });
    expect(after.pluginData).toEqual({ a: { c: 2 }, d: 3 });
  });

  it.each(['a/b', 'a.b', 'a/b/'])(
    'unset-plugin-data %s removes a dict it empties, one level up, as a.b does',
    (path) => {
      const after = (plugin_data: Record<string, unknown>) =>
        run([{ op: 'unset-plugin-data', args: [path] }], { node: {}, plugin_data }).pluginData;
      expect(after({ a: { b: 1 }, keep: 1 })).toEqual({ keep: 1 });
      expect(after({ a: { b: 1, c: 2 } })).toEqual({ a: { c: 2 } });
      expect(after({ a: { c: 2 } })).toEqual({ a: { c: 2 } });
    },
  );

  it('unset-plugin-data x/a/b removes only the emptied a, as x.a.b does', () => {
    for (const path of ['x/a/b', 'x.a.b'])
      expect(
        run([{ op: 'unset-plugin-data', args: [path] }], {
          node: {},
          plugin_data: { x: { a: { b: 1 } } },
        }).pluginData,
      ).toEqual({ x: {} });
  });

  it('a slash inside a path is part of a key where that key exists, as Ironic splits plugin data paths on dots only', () => {
    // Ironic's set/extend/unset-plugin-data split `path` with split('.'); only node and port
    // paths (normalize_path) take slashes.
    const data = { a: { b: 1 }, 'a/b': 2 };
    const after = run([{ op: 'unset-plugin-data', args: ['a/b'] }], {
      node: {},
      plugin_data: data,
    });
    expect(after.pluginData).toEqual({ a: { b: 1 } });
    expect(run([{ op: 'set-plugin-data', args: ['c/d', 1] }], { node: {} }).pluginData).toEqual({
      'c/d': 1,
    });
  });

  it('a path starting with / is still a JSON Pointer', () => {
    expect(run([{ op: 'set-plugin-data', args: ['/a/b', 1] }], { node: {} }).pluginData).toEqual({
      a: { b: 1 },
    });
  });
});

describe("Ironic's other actions", () => {
  it('set-capability appends name:value to properties.capabilities, unset-capability removes every entry of the name', () => {
    const node = { properties: { capabilities: 'boot_mode:bios' } };
    const result = run(
      [
        { op: 'set-capability', args: { name: 'cpu_vt', value: '{inventory[vt]}' } },
        { op: 'set-capability', args: ['cpu_vt', 'again'] },
        { op: 'unset-capability', args: ['boot_mode'] },
      ],
      { node, inventory: { vt: true } },
    );
    expect(result.failure).toBeNull();
    const patch = fullView(result).node_patch;
    expect(patch.at(-1)).toEqual({
      op: 'add',
      path: '/properties/capabilities',
      value: 'cpu_vt:True,cpu_vt:again',
    });
    expect(applyJsonPatch(node, patch)).toEqual({
      properties: { capabilities: 'cpu_vt:True,cpu_vt:again' },
    });
  });

  it('set-capability on a node without properties creates them explicitly', () => {
    expect(
      fullView(run([{ op: 'set-capability', args: ['boot_mode', 'uefi'] }], { node: {} }))
        .node_patch,
    ).toEqual([
      { op: 'add', path: '/properties', value: {} },
      { op: 'add', path: '/properties/capabilities', value: 'boot_mode:uefi' },
    ]);
  });

  it('add-trait and remove-trait change node traits; a trait already there or not there changes nothing', () => {
    const node = { traits: ['CUSTOM_A'] };
    const result = run(
      [
        { op: 'add-trait', args: ['CUSTOM_B'] },
        { op: 'add-trait', args: ['CUSTOM_B'] },
        { op: 'remove-trait', args: ['CUSTOM_A'] },
        { op: 'remove-trait', args: { name: 'CUSTOM_MISSING' } },
      ],
      { node },
    );
    expect(result.failure).toBeNull();
    const patch = fullView(result).node_patch;
    expect(patch).toEqual([
      { op: 'add', path: '/traits', value: ['CUSTOM_A', 'CUSTOM_B'] },
      { op: 'add', path: '/traits', value: ['CUSTOM_B'] },
    ]);
    expect(applyJsonPatch(node, patch)).toEqual({ traits: ['CUSTOM_B'] });
    expect(result.logs).toEqual([
      expect.objectContaining({
        level: 'warning',
        message: expect.stringMatching(/CUSTOM_MISSING/),
      }),
    ]);
  });

  it("conditions: null is refused, as Ironic's schema refuses it", () => {
    expect(refusal({ conditions: null, actions: [{ op: 'log', args: ['x'] }] })).toMatch(
      /conditions: must be a list/,
    );
  });

  it('api-call is refused when the rule is created, with the reason', () => {
    expect(
      refusal({ actions: [{ op: 'api-call', args: { url: 'http://hook.example/x' } }] }),
    ).toMatch(/actions\[0\]: api-call is not supported: it would let a rule/);
  });

  it('log levels are case-insensitive and include critical; others fail the rule', () => {
    const result = run(
      [
        { op: 'log', args: { msg: 'a', level: 'WARNING' } },
        { op: 'log', args: ['b', 'Critical'] },
      ],
      { node: {} },
    );
    expect(result.logs.map((log) => log.level)).toEqual(['warning', 'critical']);
    expect(run([{ op: 'log', args: ['c', 'loud'] }], { node: {} }).failure).toMatch(
      /log level must be one of/,
    );
  });
});

describe('loops, as Ironic runs them', () => {
  it('a dict loop runs once, with the dict as the item, for actions and conditions', () => {
    const result = run(
      // The wire contract types `loop` as a list or a string; Ironic's dict form is taken all the same.
      [
        {
          op: 'set-attribute',
          args: { path: '{item[path]}', value: '{item[value]}' },
          loop: { path: '/driver_info/ipmi_address', value: '{inventory[bmc_address]}' } as never,
        },
      ],
      { node: { driver_info: {} }, inventory: { bmc_address: '192.0.2.9' } },
      [{ op: 'eq', args: ['{item[a]}', 1], loop: { a: 1 } as never, multiple: 'all' }],
    );
    expect(result.failure).toBeNull();
    // The item's own template is interpolated again, as Ironic formats loop arguments twice.
    expect(fullView(result).node_patch).toEqual([
      { op: 'add', path: '/driver_info/ipmi_address', value: '192.0.2.9' },
    ]);
  });

  it('compares loop items as strings (Ironic forces force_strings in loops)', () => {
    expect(holds({ op: 'eq', args: ['{item}', '1'], loop: [1] })).toBe(true);
    expect(holds({ op: 'eq', args: ['{item}', '1'] }, {})).toBe(false);
    // '10' < '9' as strings.
    expect(holds({ op: 'lt', args: ['{item}', 9], loop: [10] })).toBe(true);
  });

  it('interpolates every argument in a loop, and templated dict keys', () => {
    const result = run(
      [
        {
          op: 'set-plugin-data',
          args: { path: 'macs.{item[name]}', value: '{item[mac]}' },
          loop: [{ name: 'eth0', mac: 'm0' }],
        },
        { op: 'set-plugin-data', args: ['host', { '{inventory[name]}': true }] },
      ],
      { node: {}, inventory: { name: 'node-7' } },
    );
    expect(result.failure).toBeNull();
    expect(result.pluginData).toEqual({ macs: { eth0: 'm0' }, host: { 'node-7': true } });
  });
});

describe('interpolation, as Python str.format reads it', () => {
  const inventory = {
    cpu: { count: 8, ratio: 0.5, model: 'Xeon' },
    disks: [{ size: 10 }, { size: 20 }],
    names: { '-1': 'minus one' },
    flag: true,
    none: null,
  };
  const value = (template: string) => {
    const result = run([{ op: 'set-plugin-data', args: ['v', template] }], {
      node: { name: 'n1' },
      inventory,
    });
    if (result.failure) throw new Error(result.failure);
    return result.pluginData.v;
  };

  it('formats with the allowed specs and conversions', () => {
    expect(value('{inventory[cpu][count]:>4}')).toBe('   8');
    expect(value('{inventory[cpu][count]:04d}')).toBe('0008');
    expect(value('{inventory[cpu][count]:x}|{inventory[cpu][count]:#b}')).toBe('8|0b1000');
    expect(value('{inventory[cpu][ratio]:.1%}')).toBe('50.0%');
    expect(value('{inventory[cpu][ratio]:.3f}')).toBe('0.500');
    expect(value('[{inventory[cpu][model]:^8}]')).toBe('[  Xeon  ]');
    expect(value('{inventory[cpu][model]:.2}')).toBe('Xe');
    expect(value('{inventory[cpu][model]!r}')).toBe("'Xeon'");
    expect(value('{inventory[cpu][count]:,}')).toBe('8');
    // A whole-value lookup with a spec or conversion is text.
    expect(value('{inventory[cpu][count]!s}')).toBe('8');
  });

  it('writes values inside text as Python does', () => {
    expect(value('{inventory[flag]} {inventory[none]} {inventory[disks]}')).toBe(
      "True None [{'size': 10}, {'size': 20}]",
    );
  });

  it('reads [-1] as the string key "-1", never as the last item, and [0] only from lists', () => {
    expect(value('{inventory[names][-1]}')).toBe('minus one');
    expect(
      run([{ op: 'set-plugin-data', args: ['v', '{inventory[disks][-1]}'] }], {
        node: {},
        inventory,
      }).failure,
    ).toMatch(/\{inventory\[disks\]\[-1\]\} does not exist/);
    expect(
      holds(
        { op: 'is-none', args: ['{inventory[zero][0]}'] },
        { inventory: { zero: { '0': 'x' } } },
      ),
    ).toBe(true);
  });

  it('a format that does not suit the value is an evaluation error', () => {
    expect(
      run([{ op: 'set-plugin-data', args: ['v', '{inventory[cpu][model]:d}'] }], {
        node: {},
        inventory,
      }).failure,
    ).toMatch(/format code 'd' cannot format a string/);
  });

  it('refuses at create what Ironic could not read, or this project will not run, naming why', () => {
    const refused = (template: string) => refusal({ actions: [{ op: 'log', args: [template] }] });
    expect(refused('{inventory.cpu}')).toMatch(
      /\.cpu is an attribute, which only the node has in Ironic; write \[cpu\]/,
    );
    expect(refused('{node.driver_info.ipmi_address}')).toMatch(/\.ipmi_address is an attribute/);
    expect(refused('{node.__class__}')).toMatch(/no dunder attributes/);
    expect(refused('{inventory[cpu]!a}')).toMatch(/unsupported conversion "!a"/);
    expect(refused('{inventory[cpu]:{width}}')).toMatch(/single "\}"|unsupported format spec/);
    expect(refused('{inventory[cpu]:>10q}')).toMatch(/unsupported format spec/);
    expect(value('{node.name}')).toBe('n1');
  });
});

describe('conditions, as Ironic evaluates them', () => {
  it('eq, lt and gt with fewer than two values hold; one argument is the list of values', () => {
    expect(holds({ op: 'eq', args: { values: [1] } })).toBe(true);
    expect(holds({ op: 'eq', args: { values: [] } })).toBe(true);
    expect(holds({ op: 'eq', args: [[1, 1]] })).toBe(true);
    expect(
      holds({ op: 'lt', args: ['{inventory[sizes]}'] }, { inventory: { sizes: [1, 2, 3] } }),
    ).toBe(true);
    expect(holds({ op: 'eq', args: { values: [1, '1'] } })).toBe(false);
    expect(
      refusal({
        conditions: [{ op: 'eq', args: [[1, 2], true] }],
        actions: [{ op: 'log', args: ['x'] }],
      }),
    ).toMatch(/write args as \{values/);
  });

  it('is-empty holds for the strings Ironic treats as empty, and for what is missing', () => {
    // `{{}}` is the text `{}` (a bare `{}` is refused when the rule is created: no name to look up).
    for (const value of ['', 'None', '[]', '{{}}', null, [], {}])
      expect(holds({ op: 'is-empty', args: [value] })).toBe(true);
    for (const value of [' ', 'none', 0, false, [0]])
      expect(holds({ op: 'is-empty', args: [value] })).toBe(false);
    expect(holds({ op: 'is-empty', args: ['{inventory[missing]}'] })).toBe(true);
  });

  it('is-empty: a lookup that finds nothing makes the whole value null, so it counts as empty', () => {
    const data = {
      node: { driver_info: {} },
      inventory: { disks: [{ name: 'sda' }], model: 'X1', bmc: null },
      plugin_data: {},
    };
    const empty = (value: unknown, extra: Partial<InspectionRuleStep> = {}) =>
      holds({ op: 'is-empty', args: [value], ...extra }, data);
    for (const value of [
      '{inventory[missing]}',
      '{inventory[missing][deeper]}',
      '{node.driver_info[ipmi_address]}',
      '{node.no_such_attribute}',
      '{plugin_data[bmc_address]}',
      'prefix-{inventory[missing]}-suffix',
      '{inventory[disks][5]}',
      '{inventory[disks][0][size]}',
      '{inventory[model][x]}',
      '{inventory[bmc][address]}',
    ])
      expect([value, empty(value)]).toEqual([value, true]);
    expect(holds({ op: 'is-empty', args: { value: '{inventory[missing]}' } }, data)).toBe(true);
    expect(empty('{item[missing]}', { loop: [{ a: 1 }] })).toBe(true);
    expect(empty('{item}', { loop: ['{inventory[missing]}'] })).toBe(true);
    expect(holds({ op: '!is-empty', args: ['{inventory[missing]}'] }, data)).toBe(false);
    // Not inside a list or a dict: that holds a null, and is not empty.
    expect(empty(['{inventory[missing]}'])).toBe(false);
    expect(empty({ k: '{inventory[missing]}' })).toBe(false);
    // A missing loop source is an error, not an empty value; so is a missing key in an action.
    const loopMissing = run([{ op: 'log', args: ['x'] }], data, [
      { op: 'is-empty', args: ['{item}'], loop: '{inventory[missing]}' },
    ]);
    expect(loopMissing.failure).toMatch(/loop must give a list or a dict, got null/);
    expect(
      run([{ op: 'set-plugin-data', args: ['x', '{inventory[missing]}'] }], data).failure,
    ).toMatch(/\{inventory\[missing\]\} does not exist/);
  });

  it('is-true and is-false read strings as Ironic: any case, no spaces around', () => {
    expect(holds({ op: 'is-true', args: ['YES'] })).toBe(true);
    expect(holds({ op: 'is-true', args: [' true'] })).toBe(false);
    expect(holds({ op: 'is-false', args: ['False'] })).toBe(true);
  });

  it('one-of: no values is no match; in a string it is a substring, as Python `in`', () => {
    expect(holds({ op: 'one-of', args: { value: 'a' } })).toBe(false);
    expect(holds({ op: 'one-of', args: ['dell', 'dell inc'] })).toBe(true);
  });

  it('contains and matches look at str(value): True, None, lists as Python writes them', () => {
    expect(holds({ op: 'matches', args: [true, 'True'] })).toBe(true);
    expect(
      holds(
        { op: 'contains', args: ['{inventory[l]}', "\\['a', 1\\]"] },
        { inventory: { l: ['a', 1] } },
      ),
    ).toBe(true);
  });

  it('arguments Ironic does not format are used as written outside loops: a regex with braces works', () => {
    const fields = {
      conditions: [{ op: 'matches', args: ['{inventory[serial]}', '^\\d{3}$'] }],
      actions: [{ op: 'fail', args: ['serial {x}'] }],
    };
    expect(validateRule(fields).conditions).toHaveLength(1);
    const result = run(
      fields.actions,
      { node: {}, inventory: { serial: '123' } },
      fields.conditions,
    );
    expect(result.failure).toBe('serial {x}');
  });
});

describe('failures', () => {
  it("a sensitive rule's failure names the check that failed, without values", () => {
    const sensitive = rule({
      sensitive: true,
      actions: [
        { op: 'log', args: ['x'] },
        { op: 'set-attribute', args: ['/driver_info/password', '{inventory[gone]}'] },
      ],
    });
    const result = new RuleSet([sensitive], { maskSecrets: 'always' }).run('main', {
      node: {},
      inventory: { secret: 'hunter2' },
    });
    expect(result.failure).toBe(`Rule ${sensitive.uuid} failed at actions[1] (set-attribute).`);
  });

  it("masks Ironic's secret keys (password, auth_token, bmc_password) from rules", () => {
    const result = run([{ op: 'set-plugin-data', args: ['copy', '{inventory}'] }], {
      node: {},
      inventory: { password: 'p', auth_token: 't', bmc_password: 'b', other: 'o' },
    });
    expect(result.pluginData.copy).toEqual({
      password: '***',
      auth_token: '***',
      bmc_password: '***',
      other: 'o',
    });
  });
});
