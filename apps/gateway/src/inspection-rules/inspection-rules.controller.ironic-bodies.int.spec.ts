import {
  BUILT_IN_UUID,
  Rule,
  inspectionRulesSystem,
  logRule,
} from '../../test/inspection-rules-system';

describe("given Ironic's API shape on inspection rules, when rules are written, listed and paged, then bodies, fields and pages are Ironic's", () => {
  const system = inspectionRulesSystem();
  const { call, ironic } = system;

  beforeAll(async () => {
    expect((await call('DELETE', '/v1/inspection_rules')).status).toBe(204);
  });

  it('refuses phase: null, and echoes multiple as Ironic normalises it', async () => {
    const refused = await ironic('POST', '/v1/inspection_rules', {
      phase: null,
      actions: [{ op: 'log', args: ['x'] }],
    });
    expect(refused.status).toBe(400);
    expect(refused.fault?.faultstring).toMatch(/phase/);
    const created = await ironic('POST', '/v1/inspection_rules', {
      conditions: [
        { op: 'eq', args: ['{item}', 1], loop: [1, 2] },
        { op: 'eq', args: [1, 1], multiple: 'all' },
        { op: 'eq', args: ['{item}', 2], loop: [1, 2], multiple: 'last' },
      ],
      actions: [
        { op: 'log', args: ['{item}'], loop: ['a'], multiple: 'all' },
        { op: 'log', args: ['x'], loop: [] },
      ],
    });
    expect(created.status).toBe(201);
    expect(created.body.conditions).toEqual([
      { op: 'eq', args: ['{item}', 1], loop: [1, 2], multiple: 'any' },
      { op: 'eq', args: [1, 1] },
      { op: 'eq', args: ['{item}', 2], loop: [1, 2], multiple: 'last' },
    ]);
    expect(created.body.actions).toEqual([
      { op: 'log', args: ['{item}'], loop: ['a'] },
      { op: 'log', args: ['x'] },
    ]);
    await ironic('DELETE', `/v1/inspection_rules/${created.body.uuid}`);
  });

  it('returns the fields asked for (and links) on get, and refuses unknown ones', async () => {
    const { body: created } = await ironic('POST', '/v1/inspection_rules', logRule('fields', 4));
    const some = await ironic('GET', `/v1/inspection_rules/${created.uuid}?fields=uuid,priority`);
    expect(some.body).toEqual({ uuid: created.uuid, priority: 4, links: created.links });
    const bogus = await ironic('GET', `/v1/inspection_rules/${created.uuid}?fields=uuid,bogus`);
    expect(bogus.status).toBe(400);
    expect(bogus.fault?.faultstring).toBe('Field(s) "bogus" are not valid');
    await ironic('DELETE', `/v1/inspection_rules/${created.uuid}`);
  });

  it('lists Ironic default fields with links; detail gives everything; fields picks', async () => {
    const list = (await ironic('GET', '/v1/inspection_rules')).body.inspection_rules as Record<
      string,
      unknown
    >[];
    expect(list.length).toBeGreaterThan(0);
    for (const item of list)
      expect(Object.keys(item).sort()).toEqual([
        'description',
        'links',
        'phase',
        'priority',
        'uuid',
      ]);
    const detailed = (await ironic('GET', '/v1/inspection_rules?detail=True')).body
      .inspection_rules as Record<string, unknown>[];
    expect(Object.keys(detailed[0])).toEqual(
      expect.arrayContaining([
        'uuid',
        'created_at',
        'updated_at',
        'sensitive',
        'conditions',
        'actions',
        'links',
      ]),
    );
    const picked = (await ironic('GET', '/v1/inspection_rules?fields=uuid')).body
      .inspection_rules as Record<string, unknown>[];
    expect(Object.keys(picked[0]).sort()).toEqual(['links', 'uuid']);
    const both = await ironic('GET', '/v1/inspection_rules?detail=True&fields=uuid');
    expect(both.status).toBe(400);
    expect(both.fault?.faultstring).toBe(
      'Can not specify ?detail=True and fields in the same request.',
    );
  });

  it('imports report every rule refused, with its reason, and import none', async () => {
    const before = ((await ironic('GET', '/v1/inspection_rules')).body.inspection_rules as Rule[])
      .length;
    const refused = await call('POST', '/v1/inspection_rules:import', [
      { description: 'bad op', actions: [{ op: 'explode' }] },
      { description: 'fine', actions: [{ op: 'log', args: ['x'] }] },
      { description: 'hook', actions: [{ op: 'api-call', args: { url: 'http://hook.example/' } }] },
      { description: 'null phase', phase: null, actions: [{ op: 'log', args: ['x'] }] },
    ]);
    expect(refused.status).toBe(400);
    expect(refused.fault?.faultstring).toMatch(
      /^3 of 4 rules refused, none imported\. Rule 0: .*unknown action "explode".* Rule 2: .*api-call is not supported.* Rule 3: .*phase/,
    );
    expect(
      ((await ironic('GET', '/v1/inspection_rules')).body.inspection_rules as Rule[]).length,
    ).toBe(before);
  });

  it('a one-rule import that is refused says so as any import does: "1 of 1 rules refused … Rule 0:"', async () => {
    const before = ((await ironic('GET', '/v1/inspection_rules')).body.inspection_rules as Rule[])
      .length;
    const json = await call('POST', '/v1/inspection_rules:import', [
      { description: 'bad op', actions: [{ op: 'explode' }] },
    ]);
    expect(json.status).toBe(400);
    expect(json.fault?.faultstring).toMatch(
      /^1 of 1 rules refused, none imported\. Rule 0: .*unknown action "explode"/,
    );
    const yaml = await call(
      'POST',
      '/v1/inspection_rules:import',
      '- description: none\n  actions: ~\n',
      'application/yaml',
    );
    expect(yaml.status).toBe(400);
    expect(yaml.fault?.faultstring).toMatch(
      /^1 of 1 rules refused, none imported\. Rule 0: .*actions/,
    );
    // A create still answers with the rule's own error, as Ironic's POST does.
    const created = await call('POST', '/v1/inspection_rules', { actions: [{ op: 'explode' }] });
    expect(created.status).toBe(400);
    expect(created.fault?.faultstring).toMatch(/^Invalid inspection rule: .*explode/);
    expect(
      ((await ironic('GET', '/v1/inspection_rules')).body.inspection_rules as Rule[]).length,
    ).toBe(before);
  });

  it('refuses an unpaired UTF-16 surrogate anywhere in a rule, naming the field, on create, patch and import (JSON or YAML)', async () => {
    const before = (await call('GET', '/v1/inspection_rules?detail=true')).body;
    const created = await call('POST', '/v1/inspection_rules', {
      description: 'rack \ud800',
      actions: [{ op: 'log', args: ['x'] }],
    });
    expect(created.status).toBe(400);
    expect(created.fault?.faultstring).toBe(
      'description must not contain an unpaired UTF-16 surrogate.',
    );
    const imported = await call('POST', '/v1/inspection_rules:import', [
      { actions: [{ op: 'log', args: ['\udc00'] }] },
    ]);
    expect(imported.status).toBe(400);
    expect(imported.fault?.faultstring).toBe(
      '[0].actions[0].args[0] must not contain an unpaired UTF-16 surrogate.',
    );
    // YAML's own escape: only the service, once it has read the YAML, can see it.
    const yaml = await call(
      'POST',
      '/v1/inspection_rules:import',
      '- description: "rack \\ud800"\n  actions: [{op: log, args: [x]}]\n',
      'application/yaml',
    );
    expect(yaml.status).toBe(400);
    expect(yaml.fault?.faultstring).toBe(
      '1 of 1 rules refused, none imported. Rule 0: Invalid inspection rule: description: must not contain unpaired UTF-16 surrogates.',
    );
    const rule = await call('POST', '/v1/inspection_rules', logRule('surrogates', 5));
    const patched = await call('PATCH', `/v1/inspection_rules/${rule.body.uuid}`, [
      { op: 'replace', path: '/description', value: '\ud83d' },
    ]);
    expect(patched.status).toBe(400);
    expect(patched.fault?.faultstring).toBe(
      '[0].value must not contain an unpaired UTF-16 surrogate.',
    );
    await call('DELETE', `/v1/inspection_rules/${rule.body.uuid}`);
    expect((await call('GET', '/v1/inspection_rules?detail=true')).body).toEqual(before);
  });

  it("runs Ironic's trait and capability actions and dotted plugin data paths, in the node patch", async () => {
    const created = await ironic('POST', '/v1/inspection_rules', {
      description: 'traits',
      conditions: [{ op: 'eq', args: { values: ['{inventory[cpu][architecture]}', 'x86_64'] } }],
      actions: [
        { op: 'add-trait', args: { name: 'CUSTOM_X86' } },
        { op: 'set-capability', args: { name: 'boot_mode', value: 'uefi' } },
        {
          op: 'set-plugin-data',
          args: { path: 'cpu.arch', value: '{inventory[cpu][architecture]}' },
        },
      ],
    });
    expect(created.status).toBe(201);
    const evaluated = await call('POST', '/v1/inspection_rules:evaluate', {
      node: { uuid: 'n1', traits: [] },
      inventory: { cpu: { architecture: 'x86_64' } },
      // Rules created without a scope get the default scope (lab) here.
      scope: 'lab',
    });
    expect(evaluated.status).toBe(200);
    expect(evaluated.body.failure).toBeNull();
    expect(evaluated.body.node_patch).toEqual([
      { op: 'add', path: '/traits', value: ['CUSTOM_X86'] },
      { op: 'add', path: '/properties', value: {} },
      { op: 'add', path: '/properties/capabilities', value: 'boot_mode:uefi' },
    ]);
    expect(evaluated.body.plugin_data).toMatchObject({ cpu: { arch: 'x86_64' } });
    await ironic('DELETE', `/v1/inspection_rules/${created.body.uuid}`);
  });

  it('pages with limit, marker and next, and sorts with sort_key and sort_dir', async () => {
    expect((await call('DELETE', '/v1/inspection_rules')).status).toBe(204);
    const uuids: string[] = [BUILT_IN_UUID];
    for (const [name, priority] of [
      ['low', 1],
      ['high', 9],
      ['middle', 5],
    ] as const) {
      uuids.push((await ironic('POST', '/v1/inspection_rules', logRule(name, priority))).body.uuid);
    }
    const first = await ironic('GET', '/v1/inspection_rules?limit=2');
    expect((first.body.inspection_rules as Rule[]).map((r) => r.uuid)).toEqual(uuids.slice(0, 2));
    expect(first.body.next).toBe(
      `${system.base}/v1/inspection_rules?sort_key=id&sort_dir=asc&fields=uuid,priority,phase,description&limit=2&marker=${uuids[1]}`,
    );
    // python-ironicclient follows `next` as it is.
    const second = await ironic(
      'GET',
      new URL(first.body.next).pathname + new URL(first.body.next).search,
    );
    expect((second.body.inspection_rules as Rule[]).map((r) => r.uuid)).toEqual(uuids.slice(2));
    const third = await ironic(
      'GET',
      new URL(second.body.next).pathname + new URL(second.body.next).search,
    );
    expect(third.body).toEqual({ inspection_rules: [] });
    // A page that is not full has no next.
    expect((await ironic('GET', '/v1/inspection_rules?limit=5')).body.next).toBeUndefined();

    const byPriority = await ironic('GET', '/v1/inspection_rules?sort_key=priority&sort_dir=desc');
    expect((byPriority.body.inspection_rules as Rule[]).map((r) => r.priority)).toEqual([
      10000, 9, 5, 1,
    ]);
    const afterMarker = await ironic(
      'GET',
      `/v1/inspection_rules?sort_key=priority&sort_dir=desc&marker=${uuids[2]}&limit=1`,
    );
    expect((afterMarker.body.inspection_rules as Rule[]).map((r) => r.priority)).toEqual([5]);
    expect(afterMarker.body.next).toContain('sort_key=priority&sort_dir=desc');

    for (const [query, status, message] of [
      ['limit=0', 400, 'Limit must be positive'],
      ['limit=two', 400, "Schema error: 'two' is not of type 'integer'"],
      ['sort_key=actions', 400, 'The sort_key value actions is an invalid field for sorting'],
      ['sort_key=bogus', 400, 'The sort_key value bogus is an invalid field for sorting'],
      ['sort_dir=up', 400, "Invalid sort direction: up. Acceptable values are 'asc' or 'desc'"],
      [
        'marker=99999999-9999-4999-8999-999999999999',
        404,
        'Rule 99999999-9999-4999-8999-999999999999 could not be found.',
      ],
    ] as const) {
      const refused = await ironic('GET', `/v1/inspection_rules?${query}`);
      expect([query, refused.status]).toEqual([query, status]);
      expect(refused.fault?.faultstring).toBe(message);
    }
  });
});
