import { BUILT_IN_UUID, Rule, inspectionRulesSystem } from '../../test/inspection-rules-system';

describe('given the inspection rules API through the gateway, when rules are patched, deleted, evaluated and imported', () => {
  const { call, create } = inspectionRulesSystem();

  it('patches a rule with JSON Patch and refuses forbidden changes with 400', async () => {
    const { body: rule } = await create({
      description: 'before',
      actions: [{ op: 'log', args: ['x'] }],
    });
    const patched = await call(
      'PATCH',
      `/v1/inspection_rules/${rule.uuid}`,
      [
        { op: 'replace', path: '/description', value: 'after' },
        { op: 'replace', path: '/priority', value: 42 },
        { op: 'add', path: '/conditions/-', value: { op: 'eq', args: [1, 1] } },
      ],
      'application/json-patch+json',
    );
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      description: 'after',
      priority: 42,
      conditions: [{ op: 'eq', args: [1, 1] }],
    });
    expect(patched.body.updated_at).not.toBeNull();
    for (const patch of [
      [{ op: 'replace', path: '/built_in', value: true }],
      [{ op: 'replace', path: '/priority', value: 10000 }],
      [{ op: 'replace', path: '/priority', value: -1 }],
      [{ op: 'remove', path: '/nonexistent' }],
      { op: 'replace' },
    ]) {
      const response = await call('PATCH', `/v1/inspection_rules/${rule.uuid}`, patch);
      expect(response.status).toBe(400);
    }
    expect((await call('GET', `/v1/inspection_rules/${rule.uuid}`)).body.priority).toBe(42);
  });

  it('protects built-in rules: no PATCH, no DELETE (400), and DELETE all keeps them', async () => {
    const patch = await call('PATCH', `/v1/inspection_rules/${BUILT_IN_UUID}`, [
      { op: 'replace', path: '/priority', value: 1 },
    ]);
    expect(patch.status).toBe(400);
    expect(patch.fault?.faultstring).toMatch(/built in/);
    expect((await call('DELETE', `/v1/inspection_rules/${BUILT_IN_UUID}`)).status).toBe(400);
    const { body: rule } = await create({ actions: [{ op: 'log', args: ['x'] }] });
    expect((await call('DELETE', `/v1/inspection_rules/${rule.uuid}`)).status).toBe(204);
    expect((await call('GET', `/v1/inspection_rules/${rule.uuid}`)).status).toBe(404);
    expect((await call('DELETE', '/v1/inspection_rules')).status).toBe(204);
    const left = (await call('GET', '/v1/inspection_rules')).body.inspection_rules as Rule[];
    expect(left.map((r) => r.uuid)).toEqual([BUILT_IN_UUID]);
  });

  it(':evaluate refuses bad input with 400', async () => {
    expect((await call('POST', '/v1/inspection_rules:evaluate', { phase: 'late' })).status).toBe(
      400,
    );
    expect((await call('POST', '/v1/inspection_rules:evaluate', { node: 'x' })).status).toBe(400);
  });

  it(':import takes YAML, all or nothing', async () => {
    await call('DELETE', '/v1/inspection_rules');
    const good = `
- description: one
  actions: [{op: log, args: [one]}]
- description: two
  phase: preprocess
  actions: [{op: set-plugin-data, args: [/two, 2]}]
`;
    const bad = `${good}- description: three\n  actions: [{op: explode}]\n`;
    const refused = await call('POST', '/v1/inspection_rules:import', bad, 'application/yaml');
    expect(refused.status).toBe(400);
    expect(refused.fault?.faultstring).toMatch(/Rule 2: .*unknown action "explode"/);
    expect(
      ((await call('GET', '/v1/inspection_rules')).body.inspection_rules as Rule[]).length,
    ).toBe(1);
    const imported = await call(
      'POST',
      '/v1/inspection_rules:import',
      `${good}- description: three\n  sensitive: true\n  actions: [{op: log, args: [secret-three]}]\n`,
      'application/yaml',
    );
    expect(imported.status).toBe(201);
    expect((imported.body.inspection_rules as Rule[]).map((r) => r.description)).toEqual([
      'one',
      'two',
      'three',
    ]);
    expect((imported.body.inspection_rules as Rule[])[2]).toMatchObject({
      sensitive: true,
      conditions: null,
      actions: null,
    });
    expect(
      (
        await call(
          'POST',
          '/v1/inspection_rules:import',
          '- description: none\n  actions: ~\n',
          'application/yaml',
        )
      ).status,
    ).toBe(400);
    const json = await call('POST', '/v1/inspection_rules:import', [
      { actions: [{ op: 'log', args: ['j'] }] },
    ]);
    expect(json.status).toBe(201);
    expect(
      (await call('POST', '/v1/inspection_rules:import', 'a: [unclosed', 'application/yaml'))
        .status,
    ).toBe(400);
    expect(
      (await call('POST', '/v1/inspection_rules:import', 'a: b', 'application/yaml')).status,
    ).toBe(400);
    // A uuid taken already (or twice in the import) refuses the whole import with 409.
    const taken = (imported.body.inspection_rules as Rule[])[0].uuid;
    const clash = await call('POST', '/v1/inspection_rules:import', [
      { description: 'new', actions: [{ op: 'log', args: ['n'] }] },
      { uuid: taken, actions: [{ op: 'log', args: ['t'] }] },
    ]);
    expect(clash.status).toBe(409);
    expect(clash.fault?.faultstring).toMatch(/already exists/);
    const twice = 'bbbbbbbb-0000-4000-8000-000000000001';
    const repeated = await call('POST', '/v1/inspection_rules:import', [
      { uuid: twice, actions: [{ op: 'log', args: ['1'] }] },
      { uuid: twice, actions: [{ op: 'log', args: ['2'] }] },
    ]);
    expect(repeated.status).toBe(409);
    const left = (await call('GET', '/v1/inspection_rules')).body.inspection_rules as Rule[];
    expect(left.map((r) => r.description)).not.toContain('new');
    expect(left.map((r) => r.uuid)).not.toContain(twice);
  });
});
