import {
  ADMIN_TOKEN,
  BUILT_INS,
  BUILT_IN_UUID,
  EDITOR_TOKEN,
  Rule,
  TestSystem,
  callApi,
  startSystem,
} from '../../test/inspection-rules-system';

describe("inspection rules in Ironic's API shape", () => {
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

  const IRONIC = {
    'x-openstack-ironic-api-version': '1.96',
    accept: 'application/json',
    'user-agent': 'python-ironicclient',
  };

  async function ironic(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = IRONIC,
  ) {
    const response = await fetch(`${apps.base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        ...headers,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const parsed = text ? JSON.parse(text) : undefined;
    const fault =
      typeof parsed?.error_message === 'string' ? JSON.parse(parsed.error_message) : undefined;
    return { status: response.status, body: parsed, fault, headers: response.headers };
  }

  const rule = (description: string, priority: number) => ({
    description,
    priority,
    actions: [{ op: 'log', args: [description] }],
  });

  beforeAll(async () => {
    expect((await call('DELETE', '/v1/inspection_rules')).status).toBe(204);
  });

  it('creates with 201, a Location naming the rule, links, and the version headers', async () => {
    const created = await ironic('POST', '/v1/inspection_rules', rule('located', 3));
    expect(created.status).toBe(201);
    const { uuid } = created.body as Rule;
    expect(created.headers.get('location')).toBe(`${apps.base}/v1/inspection_rules/${uuid}`);
    expect(created.body.links).toEqual([
      { href: `${apps.base}/v1/inspection_rules/${uuid}`, rel: 'self' },
      { href: `${apps.base}/inspection_rules/${uuid}`, rel: 'bookmark' },
    ]);
    expect(created.headers.get('x-openstack-ironic-api-version')).toBe('1.96');
    expect(created.headers.get('x-openstack-ironic-api-minimum-version')).toBe('1.1');
    expect(created.headers.get('x-openstack-ironic-api-maximum-version')).toBe('1.115');
    expect(created.headers.get('x-openstack-request-id')).toMatch(/^req-[0-9a-f-]{36}$/);
    expect(created.headers.get('openstack-request-id')).toBe(
      created.headers.get('x-openstack-request-id'),
    );
    // The Location answers GET with the same rule.
    const fetched = await ironic(
      'GET',
      new URL(created.headers.get('location') as string).pathname,
    );
    expect(fetched.body).toEqual(created.body);
  });

  it('takes the token as OpenStack clients send it, in X-Auth-Token', async () => {
    const response = await fetch(`${apps.base}/v1/inspection_rules`, {
      headers: { ...IRONIC, 'x-auth-token': ADMIN_TOKEN },
    });
    expect(response.status).toBe(200);
    const refused = await fetch(`${apps.base}/v1/inspection_rules`, {
      headers: { ...IRONIC, 'x-auth-token': EDITOR_TOKEN },
    });
    expect(refused.status).toBe(403);
    expect(
      (
        await fetch(`${apps.base}/v1/inspection_rules`, {
          headers: { ...IRONIC, 'x-auth-token': 'wrong' },
        })
      ).status,
    ).toBe(401);
    // Elsewhere the gateway still wants a bearer token.
    expect(
      (await fetch(`${apps.base}/v1/services`, { headers: { 'x-auth-token': ADMIN_TOKEN } }))
        .status,
    ).toBe(401);
  });

  it('negotiates versions as Ironic: latest, OpenStack-API-Version, 406 outside the range, 404/405 before 1.96', async () => {
    const latest = await ironic('GET', '/v1/inspection_rules', undefined, {
      'x-openstack-ironic-api-version': 'latest',
    });
    expect(latest.status).toBe(200);
    expect(latest.headers.get('x-openstack-ironic-api-version')).toBe('1.115');
    const sdk = await ironic('GET', '/v1/inspection_rules', undefined, {
      'openstack-api-version': 'baremetal 1.100',
      'user-agent': 'openstacksdk',
    });
    expect(sdk.status).toBe(200);
    expect(sdk.headers.get('x-openstack-ironic-api-version')).toBe('1.100');
    for (const [version, message] of [
      [
        '1.200',
        'Version 1.200 was requested but the minor version is not supported by this service. The supported version range is: [1.1, 1.115].',
      ],
      [
        '2.0',
        'Mutually exclusive versions requested. Version 2.0 requested but not supported by this service. The supported version range is: [1.1, 1.115].',
      ],
      ['one', 'Invalid value for X-OpenStack-Ironic-API-Version header'],
    ]) {
      const refused = await ironic('GET', '/v1/inspection_rules', undefined, {
        'x-openstack-ironic-api-version': version,
      });
      expect(refused.status).toBe(406);
      expect(refused.fault).toEqual({ faultcode: 'Client', faultstring: message, debuginfo: null });
      // The range is on the refusal, so a client can pick a version it may use.
      expect(refused.headers.get('x-openstack-ironic-api-maximum-version')).toBe('1.115');
    }
    const old = { 'x-openstack-ironic-api-version': '1.95' };
    const uuid = '99999999-9999-4999-8999-999999999999';
    for (const [method, path, body, status] of [
      ['GET', '/v1/inspection_rules', undefined, 404],
      ['GET', `/v1/inspection_rules/${uuid}`, undefined, 404],
      ['POST', '/v1/inspection_rules', rule('old', 1), 405],
      [
        'PATCH',
        `/v1/inspection_rules/${uuid}`,
        [{ op: 'replace', path: '/priority', value: 1 }],
        405,
      ],
      ['DELETE', `/v1/inspection_rules/${uuid}`, undefined, 405],
    ] as const) {
      const refused = await ironic(method, path, body, old);
      expect(refused.status).toBe(status);
      expect(refused.fault?.faultstring).toBe('The API version does not allow inspection rules');
    }
  });

  it('answers errors as Ironic: only error_message, a JSON fault in a string', async () => {
    const missing = await ironic(
      'GET',
      '/v1/inspection_rules/99999999-9999-4999-8999-999999999999',
    );
    expect(missing.status).toBe(404);
    expect(Object.keys(missing.body)).toEqual(['error_message']);
    expect(missing.body.error_message).toBe(
      '{"faultcode": "Client", "faultstring": "Rule 99999999-9999-4999-8999-999999999999 could not be found.", "debuginfo": null}',
    );
    expect(missing.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('answers 400 for a malformed uuid on every route that takes one', async () => {
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const refused = await ironic(
        method,
        '/v1/inspection_rules/not-a-uuid',
        method === 'PATCH' ? [] : undefined,
      );
      expect(refused.status).toBe(400);
      expect(refused.fault?.faultstring).toBe("Schema error: 'not-a-uuid' is not a 'uuid'");
    }
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
    const { body: created } = await ironic('POST', '/v1/inspection_rules', rule('fields', 4));
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
      uuids.push((await ironic('POST', '/v1/inspection_rules', rule(name, priority))).body.uuid);
    }
    const first = await ironic('GET', '/v1/inspection_rules?limit=2');
    expect((first.body.inspection_rules as Rule[]).map((r) => r.uuid)).toEqual(uuids.slice(0, 2));
    expect(first.body.next).toBe(
      `${apps.base}/v1/inspection_rules?sort_key=id&sort_dir=asc&fields=uuid,priority,phase,description&limit=2&marker=${uuids[1]}`,
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
