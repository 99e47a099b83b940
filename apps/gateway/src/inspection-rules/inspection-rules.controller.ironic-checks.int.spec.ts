import { inspectionRulesSystem } from '../../test/inspection-rules-system';

describe('given rules written for Ironic, when they are saved, read back and run through the gateway, then they are checked and kept as Ironic checks and keeps them', () => {
  const { ironic } = inspectionRulesSystem({});

  const log = [{ op: 'log', args: ['x'] }];

  it('refuses a comparison without values on create and on patch with 400 naming values, and keeps the rule', async () => {
    for (const condition of [
      { op: 'eq', args: [] },
      { op: 'eq', args: {} },
      { op: 'lt', args: { force_strings: true } },
    ]) {
      const refused = await ironic('POST', '/v1/inspection_rules', {
        conditions: [condition],
        actions: log,
      });
      expect(refused.status).toBe(400);
      expect(refused.fault?.faultstring).toMatch(/conditions\[0\]: .* "values"/);
    }
    const { body: rule } = await ironic('POST', '/v1/inspection_rules', {
      conditions: [{ op: 'eq', args: { values: [1, 1] } }],
      actions: log,
    });
    const patched = await ironic('PATCH', `/v1/inspection_rules/${rule.uuid}`, [
      { op: 'replace', path: '/conditions/0/args', value: { force_strings: true } },
    ]);
    expect(patched.status).toBe(400);
    expect(patched.fault?.faultstring).toMatch(/eq is missing its "values" argument/);
    expect((await ironic('GET', `/v1/inspection_rules/${rule.uuid}`)).body.conditions).toEqual([
      { op: 'eq', args: { values: [1, 1] } },
    ]);
  });

  it("filters the list by scope with an exact match, as Ironic's database filter", async () => {
    const uuids: Record<string, string> = {};
    for (const scope of ['rack-1', 'rack-10', 'RACK-1', null])
      uuids[String(scope)] = (
        await ironic('POST', '/v1/inspection_rules', { scope, actions: log })
      ).body.uuid;
    const listed = await ironic('GET', '/v1/inspection_rules?scope=rack-1&fields=uuid,scope');
    expect(listed.body.inspection_rules.map((rule: { uuid: string }) => rule.uuid)).toEqual([
      uuids['rack-1'],
    ]);
  });

  it('keeps the key order of dicts in a rule, so a loop item reads as written in Ironic', async () => {
    const loop = [{ zz: 1, a: 2, m: { y: true, b: null } }];
    const created = await ironic('POST', '/v1/inspection_rules', {
      conditions: [{ op: 'is-true', args: { value: true } }],
      actions: [{ op: 'set-plugin-data', args: { value: 'x-{item}', path: 'out' }, loop }],
    });
    expect(created.status).toBe(201);
    const read = await ironic('GET', `/v1/inspection_rules/${created.body.uuid}`);
    const action = read.body.actions[0];
    expect(Object.keys(action.args)).toEqual(['value', 'path']);
    expect(Object.keys(action.loop[0])).toEqual(['zz', 'a', 'm']);
    expect(Object.keys(action.loop[0].m)).toEqual(['y', 'b']);
    const evaluated = await ironic('POST', '/v1/inspection_rules:evaluate', {
      phase: 'main',
      node: { uuid: 'n1' },
      plugin_data: {},
    });
    expect(evaluated.body.plugin_data.out).toBe("x-{'zz': 1, 'a': 2, 'm': {'y': True, 'b': None}}");
    // A patch keeps the order too (the rule is written again as a whole).
    await ironic('PATCH', `/v1/inspection_rules/${created.body.uuid}`, [
      { op: 'replace', path: '/priority', value: 3 },
    ]);
    const again = await ironic('GET', `/v1/inspection_rules/${created.body.uuid}`);
    expect(Object.keys(again.body.actions[0].loop[0])).toEqual(['zz', 'a', 'm']);
  });
});
