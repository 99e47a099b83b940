import {
  ADMIN_TOKEN,
  EDITOR_TOKEN,
  IRONIC_HEADERS,
  Rule,
  inspectionRulesSystem,
  logRule,
} from '../../test/inspection-rules-system';

describe("given Ironic's API shape on inspection rules, when a client sends its headers, then versions, tokens and errors answer as Ironic", () => {
  const system = inspectionRulesSystem();
  const { ironic } = system;

  it('creates with 201, a Location naming the rule, links, and the version headers', async () => {
    const created = await ironic('POST', '/v1/inspection_rules', logRule('located', 3));
    expect(created.status).toBe(201);
    const { uuid } = created.body as Rule;
    expect(created.headers.get('location')).toBe(`${system.base}/v1/inspection_rules/${uuid}`);
    expect(created.body.links).toEqual([
      { href: `${system.base}/v1/inspection_rules/${uuid}`, rel: 'self' },
      { href: `${system.base}/inspection_rules/${uuid}`, rel: 'bookmark' },
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
    const response = await fetch(`${system.base}/v1/inspection_rules`, {
      headers: { ...IRONIC_HEADERS, 'x-auth-token': ADMIN_TOKEN },
    });
    expect(response.status).toBe(200);
    const refused = await fetch(`${system.base}/v1/inspection_rules`, {
      headers: { ...IRONIC_HEADERS, 'x-auth-token': EDITOR_TOKEN },
    });
    expect(refused.status).toBe(403);
    expect(
      (
        await fetch(`${system.base}/v1/inspection_rules`, {
          headers: { ...IRONIC_HEADERS, 'x-auth-token': 'wrong' },
        })
      ).status,
    ).toBe(401);
    // Elsewhere the gateway still wants a bearer token.
    expect(
      (await fetch(`${system.base}/v1/services`, { headers: { 'x-auth-token': ADMIN_TOKEN } }))
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
      ['POST', '/v1/inspection_rules', logRule('old', 1), 405],
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
});
