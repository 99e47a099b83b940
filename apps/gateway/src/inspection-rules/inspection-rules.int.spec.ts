import {
  BUILT_INS,
  BUILT_IN_UUID,
  EDITOR_TOKEN,
  Rule,
  TestSystem,
  callApi,
  startSystem,
} from '../../test/inspection-rules-system';

describe('inspection rules API through the gateway', () => {
  let apps: TestSystem;

  beforeAll(async () => {
    apps = await startSystem(BUILT_INS, { INSPECTION_DEFAULT_SCOPE: 'lab', LOG_LEVEL: 'debug' });
  }, 60_000);

  afterAll(async () => {
    await apps?.close();
  }, 30_000);

  const call = (
    method: string,
    path: string,
    body?: unknown,
    contentType?: string,
    token?: string | null,
  ) => callApi(apps.base, method, path, body, contentType, token);
  const create = (rule: object) => call('POST', '/v1/inspection_rules', rule);

  it.each([
    ['GET', '/v1/inspection_rules', undefined],
    ['GET', `/v1/inspection_rules/${BUILT_IN_UUID}`, undefined],
    ['POST', '/v1/inspection_rules', { actions: [{ op: 'log', args: ['x'] }] }],
    ['POST', '/v1/inspection_rules:evaluate', {}],
    ['POST', '/v1/inspection_rules:import', []],
    ['PATCH', `/v1/inspection_rules/${BUILT_IN_UUID}`, []],
    ['DELETE', `/v1/inspection_rules/${BUILT_IN_UUID}`, undefined],
    ['DELETE', '/v1/inspection_rules', undefined],
  ])(
    'is for admins only: %s %s answers 401 without a token and 403 to an editor',
    async (method, path, body) => {
      expect((await call(method, path, body, 'application/json', null)).status).toBe(401);
      const refused = await call(method, path, body, 'application/json', EDITOR_TOKEN);
      expect(refused.status).toBe(403);
      expect(refused.fault).toMatchObject({
        faultcode: 'Client',
        faultstring: 'This needs the admin role.',
      });
    },
  );

  it('creates a rule with defaults, returns it, and lists it with or without detail', async () => {
    const created = await create({ actions: [{ op: 'log', args: ['hello'] }], priority: 5 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      priority: 5,
      phase: 'main',
      sensitive: false,
      built_in: false,
      scope: 'lab',
      description: null,
      conditions: [],
      actions: [{ op: 'log', args: ['hello'] }],
      updated_at: null,
    });
    const uuid = (created.body as Rule).uuid;
    expect((await call('GET', `/v1/inspection_rules/${uuid}`)).body).toEqual(created.body);
    const summary = (await call('GET', '/v1/inspection_rules')).body.inspection_rules as Rule[];
    expect(summary.map((r) => r.uuid)).toEqual(expect.arrayContaining([BUILT_IN_UUID, uuid]));
    expect(summary.every((r) => !('conditions' in r) && !('actions' in r))).toBe(true);
    const detailed = (await call('GET', '/v1/inspection_rules?detail=true')).body
      .inspection_rules as Rule[];
    expect(detailed.find((r) => r.uuid === uuid)?.actions).toEqual([
      { op: 'log', args: ['hello'] },
    ]);
    expect(detailed.find((r) => r.uuid === BUILT_IN_UUID)).toMatchObject({
      built_in: true,
      priority: 10000,
    });
  });

  it('filters the list by scope and phase', async () => {
    const early = await create({
      phase: 'early',
      scope: 'rack-9',
      actions: [{ op: 'log', args: ['early'] }],
    });
    await create({ phase: 'preprocess', scope: 'rack-9', actions: [{ op: 'log', args: ['pre'] }] });
    const byPhase = (await call('GET', '/v1/inspection_rules?phase=early')).body
      .inspection_rules as Rule[];
    expect(byPhase.map((r) => r.uuid)).toEqual([early.body.uuid]);
    const byScope = (await call('GET', '/v1/inspection_rules?scope=rack-9')).body
      .inspection_rules as Rule[];
    expect(byScope.map((r) => r.phase)).toEqual(['early', 'preprocess']);
    const both = (await call('GET', '/v1/inspection_rules?scope=rack-9&phase=early&detail=true'))
      .body.inspection_rules as Rule[];
    expect(both).toEqual([
      expect.objectContaining({ uuid: early.body.uuid, actions: [{ op: 'log', args: ['early'] }] }),
    ]);
  });

  it.each([
    ['no actions', {}, /actions/],
    ['an unknown action', { actions: [{ op: 'reboot' }] }, /unknown action "reboot"/],
    [
      'a priority out of range',
      { priority: 10000, actions: [{ op: 'log', args: ['x'] }] },
      /priority: must be between 0 and 9999/,
    ],
    ['built_in', { built_in: true, actions: [{ op: 'log', args: ['x'] }] }, /built_in/],
    [
      'a node action in early',
      { phase: 'early', actions: [{ op: 'set-attribute', args: ['/driver', 'x'] }] },
      /cannot run in the early phase/,
    ],
    [
      'a catastrophic regex',
      {
        conditions: [{ op: 'matches', args: ['{node.name}', '(a+)+$'] }],
        actions: [{ op: 'log', args: ['x'] }],
      },
      /catastrophic/,
    ],
    [
      'the seed typo',
      {
        conditions: [{ op: '!is-empty', args: ['{plugin_data[bmc_address}'] }],
        actions: [{ op: 'log', args: ['x'] }],
      },
      /bad index in \{plugin_data\[bmc_address\}/,
    ],
    ['a body that is not a rule', [{ actions: [] }], /./],
    [
      'conditions that are not a list',
      { conditions: 'always', actions: [{ op: 'log', args: ['x'] }] },
      /conditions/,
    ],
  ])('refuses %s with 400 naming the problem', async (_, rule, message) => {
    const response = await create(rule);
    expect(response.status).toBe(400);
    expect(response.fault?.faultcode).toBe('Client');
    expect(response.fault?.faultstring).toMatch(message);
  });

  it('creates a rule with its own uuid, and refuses a taken uuid with 409', async () => {
    const uuid = 'aaaaaaaa-0000-4000-8000-000000000001';
    expect((await create({ uuid, actions: [{ op: 'log', args: ['x'] }] })).status).toBe(201);
    expect((await create({ uuid, actions: [{ op: 'log', args: ['x'] }] })).status).toBe(409);
    expect(
      (await create({ uuid: BUILT_IN_UUID, actions: [{ op: 'log', args: ['x'] }] })).status,
    ).toBe(409);
  });

  it('answers 404 for a rule that does not exist, on every route', async () => {
    const missing = '99999999-9999-4999-8999-999999999999';
    expect((await call('GET', `/v1/inspection_rules/${missing}`)).status).toBe(404);
    expect(
      (
        await call('PATCH', `/v1/inspection_rules/${missing}`, [
          { op: 'replace', path: '/priority', value: 1 },
        ])
      ).status,
    ).toBe(404);
    expect((await call('DELETE', `/v1/inspection_rules/${missing}`)).status).toBe(404);
  });

  it('answers 400 for invalid list queries', async () => {
    expect((await call('GET', '/v1/inspection_rules?phase=late')).status).toBe(400);
    expect((await call('GET', '/v1/inspection_rules?detail=maybe')).status).toBe(400);
    // Found by the hostile-input e2e test: a NUL in the scope used to reach Postgres (500).
    const nul = await call('GET', '/v1/inspection_rules?scope=lab%00');
    expect(nul.status).toBe(400);
    expect(nul.fault?.faultstring).toMatch(/scope/);
  });

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
