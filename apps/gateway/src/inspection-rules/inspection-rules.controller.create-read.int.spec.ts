import {
  BUILT_IN_UUID,
  EDITOR_TOKEN,
  Rule,
  inspectionRulesSystem,
} from '../../test/inspection-rules-system';

describe('given the inspection rules API through the gateway, when rules are created, read and listed', () => {
  const { call, create } = inspectionRulesSystem();

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
});
