import { P, TOKEN, experimentsSystem } from '../../test/experiments-system';

const system = experimentsSystem();
const { call } = system;

const violations = (body: { error?: { details?: { fieldViolations?: unknown[] }[] } }) =>
  body.error?.details?.find((detail) => detail.fieldViolations)?.fieldViolations;

async function send(method: string, path: string, body?: string, contentType = 'application/json') {
  const response = await fetch(`${system.url}${path}`, {
    method,
    redirect: 'manual',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': contentType },
    body,
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: text ? JSON.parse(text) : {},
  };
}

describe('bad input at the gateway: a clear 4xx, nothing stored', () => {
  it('refuses a NUL character anywhere in a JSON body, naming its path, and stores nothing', async () => {
    const nul = await call('POST', `${P}?firewallPolicyId=nul`, { displayName: 'a\u0000b' });
    expect(nul.status).toBe(400);
    expect(violations(nul.body)).toEqual([
      { field: 'displayName', description: 'must not contain a NUL character' },
    ]);
    const nested = await call('POST', `${P}?firewallPolicyId=nul`, {
      rules: [{ priority: 1, description: 'x\u0000' }],
    });
    expect(nested.status).toBe(400);
    expect(violations(nested.body)).toEqual([
      { field: 'rules[0].description', description: 'must not contain a NUL character' },
    ]);
    expect((await call('GET', `${P}/nul`)).status).toBe(404);
  });

  it('refuses an unpaired UTF-16 surrogate in a display name, a rule description, annotations or a PATCH body, naming the field, and stores nothing', async () => {
    const unpaired = 'must not contain an unpaired UTF-16 surrogate';
    const refusal = async (method: string, path: string, body: string) => {
      const answer = await send(method, path, body);
      return { status: answer.status, violations: violations(answer.body) };
    };
    expect(
      await refusal('POST', `${P}?firewallPolicyId=lone`, '{"displayName":"a\\ud800b"}'),
    ).toEqual({
      status: 400,
      violations: [{ field: 'displayName', description: unpaired }],
    });
    expect(
      await refusal(
        'POST',
        `${P}?firewallPolicyId=lone`,
        '{"rules":[{"priority":1,"description":"\\udc00"}]}',
      ),
    ).toEqual({
      status: 400,
      violations: [{ field: 'rules[0].description', description: unpaired }],
    });
    expect((await call('GET', `${P}/lone`)).status).toBe(404);

    expect(
      (await call('POST', `${P}?firewallPolicyId=kept`, { displayName: 'kept 😀' })).status,
    ).toBe(200);
    const kept = await call('GET', `${P}/kept`);
    expect(kept.body.displayName).toBe('kept 😀');
    expect(
      await refusal('PATCH', `${P}/kept?updateMask=displayName`, '{"displayName":"\\ud83d"}'),
    ).toEqual({ status: 400, violations: [{ field: 'displayName', description: unpaired }] });
    const experiments = `${P}/kept/experiments`;
    expect(
      await refusal(
        'POST',
        `${experiments}?experimentId=lone`,
        '{"firewallPolicy":{"rules":[]},"annotations":{"owner":"\\ud800"}}',
      ),
    ).toEqual({ status: 400, violations: [{ field: 'annotations.owner', description: unpaired }] });
    expect(
      await refusal(
        'POST',
        `${experiments}?experimentId=lone`,
        '{"firewallPolicy":{"rules":[]},"annotations":{"\\ud800":"v"}}',
      ),
    ).toEqual({
      status: 400,
      violations: [{ field: 'annotations["\\ud800"]', description: unpaired }],
    });
    expect((await call('GET', `${experiments}/lone`)).status).toBe(404);
    expect(await call('GET', `${P}/kept`)).toEqual(kept);
  });

  it('answers a path that is not UTF-8 once decoded (an encoded lone surrogate) 400 in the error model', async () => {
    const answer = await send('GET', `${P}/%ED%A0%80`);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({
      code: 400,
      status: 'INVALID_ARGUMENT',
      message: 'The request path is not valid percent-encoded UTF-8.',
    });
  });

  it('refuses a NUL character in a path or query parameter, naming it', async () => {
    const inPath = await call('GET', `${P}/a%00b`);
    expect(inPath.status).toBe(400);
    expect(violations(inPath.body)).toEqual([
      { field: 'policy', description: 'must not contain a NUL character' },
    ]);
    const inQuery = await call('GET', `${P}?filter=a%00b`);
    expect(inQuery.status).toBe(400);
    expect(violations(inQuery.body)).toEqual([
      { field: 'filter', description: 'must not contain a NUL character' },
    ]);
  });

  it('refuses a NUL in a query parameter that the route does not even read', async () => {
    const ignored = await call('GET', `/v1/services?verbose=a%00b`);
    expect(ignored.status).toBe(400);
    expect(violations(ignored.body)).toEqual([
      { field: 'verbose', description: 'must not contain a NUL character' },
    ]);
  });

  it('refuses an empty body and a null body on create and update, and creates nothing', async () => {
    for (const body of ['', 'null']) {
      const created = await send('POST', `${P}?firewallPolicyId=empty`, body);
      expect({ body, status: created.status }).toEqual({ body, status: 400 });
      expect(created.body.error.message).toBe('The request needs a JSON object as its body.');
      const updated = await send('PATCH', `${P}/empty?updateMask=displayName`, body);
      expect({ body, status: updated.status }).toEqual({ body, status: 400 });
    }
    const notAnObject = await send('POST', `${P}?firewallPolicyId=empty`, '[1]');
    expect(notAnObject.status).toBe(400);
    expect(notAnObject.body.error.message).toBe('The request needs a JSON object as its body.');
    expect((await call('GET', `${P}/empty`)).status).toBe(404);
  });

  it('speaks one vocabulary for bad fields: unknown field, required, must be at most N characters', async () => {
    const unknown = await call('POST', `${P}?firewallPolicyId=vocab`, { colour: 'red' });
    expect(unknown.status).toBe(400);
    expect(violations(unknown.body)).toEqual([{ field: 'colour', description: 'unknown field' }]);
    const missingId = await call('POST', P, {});
    expect(missingId.status).toBe(400);
    expect(violations(missingId.body)).toEqual([
      { field: 'firewallPolicyId', description: 'required' },
    ]);
    const longId = await call('POST', `${P}?firewallPolicyId=${'a'.repeat(64)}`, {});
    expect(violations(longId.body)).toContainEqual({
      field: 'firewallPolicyId',
      description: 'must be at most 63 characters',
    });
    const wrongType = await call('POST', `${P}?firewallPolicyId=vocab`, { displayName: 7 });
    expect(violations(wrongType.body)).toEqual([
      { field: 'displayName', description: 'must be a string' },
    ]);
    expect(wrongType.body.error.message).toBe('displayName must be a string.');
    expect((await call('GET', `${P}/vocab`)).status).toBe(404);
  });

  it('names the content type it received and those it accepts (415), and the size limit (413)', async () => {
    const xml = await send('POST', `${P}?firewallPolicyId=types`, '<a/>', 'application/xml');
    expect(xml.status).toBe(415);
    expect(xml.body.error.message).toBe(
      'Content type application/xml is not accepted: send application/json (application/json-patch+json or YAML where a route says so).',
    );
    const huge = await send(
      'POST',
      `${P}?firewallPolicyId=types`,
      JSON.stringify({ description: 'x'.repeat(1_100_000) }),
    );
    expect(huge.status).toBe(413);
    expect(huge.body.error.message).toBe(
      'The request body is larger than the limit of 1048576 bytes (1 MiB).',
    );
    expect((await call('GET', `${P}/types`)).status).toBe(404);
  });

  it('answers a wrong method on an existing route 405 with Allow, and an unknown path 404', async () => {
    const wrong = await send('PUT', `${P}/web`, '{}');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('DELETE, GET, HEAD, PATCH');
    expect(wrong.body.error.message).toBe(
      'PUT is not allowed here: use DELETE, GET, HEAD or PATCH.',
    );
    expect((await send('GET', '/v1/nowhere')).status).toBe(404);
  });

  it('sends GET / to the console, with a link to the API docs', async () => {
    const root = await send('GET', '/');
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/console/');
    expect(root.headers.get('link')).toBe('</docs>; rel="service-doc"');
  });
});
