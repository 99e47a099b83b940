import {
  ironicErrorBody,
  ironicRule,
  malformedUuid,
  negotiateVersion,
  nextLink,
  openstackRequestId,
  parseBoolean,
  parseFields,
} from './ironic-api';

const RULE = {
  uuid: '5e0e9f5c-1111-4111-8111-111111111111',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: null,
  priority: 1,
  description: null,
  scope: null,
  sensitive: false,
  phase: 'main' as const,
  conditions: [],
  actions: [{ op: 'log', args: ['x'] }],
  built_in: false,
};

describe("Ironic's API conventions", () => {
  it('reads the version from OpenStack-API-Version first, then the legacy header, as Ironic', () => {
    expect(
      negotiateVersion({
        'openstack-api-version': 'compute 2.1, baremetal 1.97',
        'x-openstack-ironic-api-version': '1.96',
      }),
    ).toEqual({
      version: { major: 1, minor: 97 },
      requested: true,
    });
    expect(negotiateVersion({ 'x-openstack-ironic-api-version': ' LATEST ' })).toEqual({
      version: { major: 1, minor: 115 },
      requested: true,
    });
    expect(negotiateVersion({})).toEqual({ version: { major: 1, minor: 115 }, requested: false });
    expect(negotiateVersion({ 'x-openstack-ironic-api-version': '1.0' })).toHaveProperty(
      'notAcceptable',
      expect.stringMatching(/^Version 1.0 was requested/),
    );
    expect(negotiateVersion({ 'x-openstack-ironic-api-version': '1.96.1' })).toEqual({
      notAcceptable: 'Invalid value for X-OpenStack-Ironic-API-Version header',
    });
  });

  it("writes the fault as Python's json.dumps does (separators, ASCII only)", () => {
    expect(ironicErrorBody(400, 'Règle "x"')).toEqual({
      error_message:
        '{"faultcode": "Client", "faultstring": "R\\u00e8gle \\"x\\"", "debuginfo": null}',
    });
    expect(JSON.parse(ironicErrorBody(503, 'down').error_message)).toEqual({
      faultcode: 'Server',
      faultstring: 'down',
      debuginfo: null,
    });
  });

  it('keeps only the fields asked for, and always the links', () => {
    expect(ironicRule(RULE, 'http://h:1', ['priority'])).toEqual({
      priority: 1,
      links: [
        { href: `http://h:1/v1/inspection_rules/${RULE.uuid}`, rel: 'self' },
        { href: `http://h:1/inspection_rules/${RULE.uuid}`, rel: 'bookmark' },
      ],
    });
    expect(parseFields('uuid, ,priority')).toEqual(['uuid', 'priority']);
    expect(() => parseFields('uuid,id,extra')).toThrow('Field(s) "id, extra" are not valid');
  });

  it('reads booleans as oslo strutils does, and uuids as Ironic schema does', () => {
    expect(['True', 'yes', '1', 'on'].map(parseBoolean)).toEqual([true, true, true, true]);
    expect(['False', 'no', '0', 'off'].map(parseBoolean)).toEqual([false, false, false, false]);
    expect(parseBoolean('maybe')).toBeUndefined();
    expect(malformedUuid(RULE.uuid)).toBeUndefined();
    expect(malformedUuid("it's")).toBe("Schema error: 'it\\'s' is not a 'uuid'");
  });

  it("answers oslo's request id: the client's valid one, else the gateway's when it is a uuid", () => {
    const fresh = () => '00000000-0000-4000-8000-000000000000';
    const mine = 'req-11111111-2222-4333-8444-555555555555';
    expect(openstackRequestId({ 'x-openstack-request-id': mine }, 'x', fresh)).toBe(mine);
    expect(
      openstackRequestId(
        { 'x-openstack-request-id': 'forged' },
        '5e0e9f5c-1111-4111-8111-111111111111',
        fresh,
      ),
    ).toBe('req-5e0e9f5c-1111-4111-8111-111111111111');
    expect(openstackRequestId({}, 'my-own-id', fresh)).toBe(
      'req-00000000-0000-4000-8000-000000000000',
    );
  });

  it('links the next page only when this one is full', () => {
    const query = {
      limit: 1,
      sort_key: 'id',
      sort_dir: 'asc',
      phase: 'main',
      fields: ['uuid', 'phase'],
    };
    expect(nextLink('http://h', query, [RULE])).toBe(
      `http://h/v1/inspection_rules?phase=main&sort_key=id&sort_dir=asc&fields=uuid,phase&limit=1&marker=${RULE.uuid}`,
    );
    expect(nextLink('http://h', { ...query, limit: 2 }, [RULE])).toBeUndefined();
    expect(nextLink('http://h', query, [])).toBeUndefined();
  });
});
