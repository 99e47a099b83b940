import { P, experimentsSystem, idsOf, rule } from '../../test/experiments-system';

const { call, createExperiment, createPolicy } = experimentsSystem();

describe('live firewall policies: create, read, update, delete, history', () => {
  it('creates, reads, updates with the etag, and refuses a stale etag', async () => {
    const created = await createPolicy('web', [rule(10, 'allow')]);
    expect(created).toMatchObject({
      name: 'projects/acme/locations/global/firewallPolicies/web',
      displayName: 'web',
      rules: [rule(10, 'allow')],
    });
    expect((await call('GET', `${P}/web`)).body).toEqual(created);
    const updated = await call('PATCH', `${P}/web?updateMask=rules`, {
      etag: created.etag,
      rules: [rule(20)],
    });
    expect(updated.status).toBe(200);
    expect(updated.body.rules).toEqual([rule(20)]);
    expect(updated.body.etag).not.toBe(created.etag);
    const stale = await call('PATCH', `${P}/web?updateMask=rules`, {
      etag: created.etag,
      rules: [],
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error.status).toBe('ABORTED');
    expect((await call('POST', `${P}?firewallPolicyId=web`, {})).status).toBe(409);
  });

  it('names the bad field of an invalid policy or id', async () => {
    const dup = await call('POST', `${P}?firewallPolicyId=dup`, { rules: [rule(1), rule(1)] });
    expect(dup.status).toBe(400);
    expect(dup.body.error.details[0].fieldViolations[0].field).toBe(
      'firewallPolicy.rules[1].priority',
    );
    const badId = await call('POST', `${P}?firewallPolicyId=Bad_Id`, {});
    expect(badId.status).toBe(400);
    expect(badId.body.error.details[0].fieldViolations[0].field).toBe('firewallPolicyId');
    expect((await call('GET', `${P}/missing`)).status).toBe(404);
  });

  it('deleting a policy deletes its experiments with it', async () => {
    await createPolicy('cascade');
    await createExperiment('cascade', 'one');
    await createExperiment('cascade', 'two');
    expect((await call('DELETE', `${P}/cascade`)).status).toBe(200);
    expect((await call('GET', `${P}/cascade`)).status).toBe(404);
    expect((await call('GET', `${P}/cascade/experiments/one`)).status).toBe(404);
    expect((await call('GET', `${P}/cascade/experiments`)).body.experiments ?? []).toEqual([]);
  });

  it('policy: stale or missing targets are ABORTED or NOT_FOUND, and the history names actor and request id', async () => {
    const live = await createPolicy('lifecycle', [rule(10, 'allow')]);
    expect((await call('PATCH', `${P}/missing?updateMask=rules`, { rules: [] })).status).toBe(404);
    expect((await call('DELETE', `${P}/missing`)).status).toBe(404);
    const stale = await call('DELETE', `${P}/lifecycle?etag=stale`);
    expect(stale.status).toBe(409);
    expect(stale.body.error.status).toBe('ABORTED');
    // Output-only fields in a request are ignored, not an error.
    const renamed = await call(
      'PATCH',
      `${P}/lifecycle?updateMask=displayName&requestId=rename-1`,
      { displayName: 'Lifecycle', etag: live.etag, createTime: '1999-01-01T00:00:00Z' },
    );
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({
      displayName: 'Lifecycle',
      rules: [rule(10, 'allow')],
      createTime: live.createTime,
    });
    const history = (await call('GET', `${P}/lifecycle/events`)).body.events;
    expect(
      history.map((e: { type: string; version: number; actor: string }) => [
        e.type,
        e.version,
        e.actor,
      ]),
    ).toEqual([
      ['PolicyCreated', 1, 'test-admin'],
      ['PolicyUpdated', 2, 'test-admin'],
    ]);
    // requestId is the call's x-request-id; the AIP-155 id the command carried is commandRequestId.
    expect(history[1]).toMatchObject({
      requestId: expect.any(String),
      commandRequestId: 'rename-1',
      time: expect.any(String),
    });
    expect(
      (await call('DELETE', `${P}/lifecycle?etag=${encodeURIComponent(renamed.body.etag)}`)).status,
    ).toBe(200);
    expect((await call('GET', `${P}/lifecycle/events`)).body.events.at(-1).type).toBe(
      'PolicyDeleted',
    );
  });
});

describe('lists of policies and experiments: every item once across pages, filtered by preview state', () => {
  it('lists every policy exactly once across pages', async () => {
    for (const id of ['page-a', 'page-b', 'page-c', 'page-d', 'page-e']) await createPolicy(id);
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = await call('GET', `${P}?pageSize=2${token ? `&pageToken=${token}` : ''}`);
      seen.push(...page.body.firewallPolicies.map((p: { name: string }) => p.name));
      token = page.body.nextPageToken;
    } while (token);
    const pages = seen.filter((n) => n.includes('/page-'));
    expect(pages).toHaveLength(5);
    expect(new Set(seen).size).toBe(seen.length);
    expect((await call('GET', `${P}?pageToken=forged`)).status).toBe(400);
  });

  it('lists only ACTIVE experiments with the filter', async () => {
    await createPolicy('filtered');
    await createExperiment('filtered', 'on');
    await createExperiment('filtered', 'off');
    await call('POST', `${P}/filtered/experiments/on:startPreview`);
    for (const filter of ['previewMetadata.state = ACTIVE', 'preview_metadata.state = ACTIVE']) {
      const listed = await call(
        'GET',
        `${P}/filtered/experiments?filter=${encodeURIComponent(filter)}`,
      );
      expect(
        listed.body.experiments.map((e: { name: string }) => e.name.split('/').at(-1)),
      ).toEqual(['on']);
    }
    const not = await call(
      'GET',
      `${P}/filtered/experiments?filter=${encodeURIComponent('previewMetadata.state != ACTIVE')}`,
    );
    expect(not.body.experiments.map((e: { name: string }) => e.name.split('/').at(-1))).toEqual([
      'off',
    ]);
    expect(
      (
        await call(
          'GET',
          `${P}/filtered/experiments?filter=${encodeURIComponent("name = 'x' OR 1=1")}`,
        )
      ).status,
    ).toBe(400);
  });

  it('lists every experiment exactly once across pages', async () => {
    await createPolicy('paged');
    const ids = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7'];
    for (const id of ids) await createExperiment('paged', id);
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = await call(
        'GET',
        `${P}/paged/experiments?pageSize=3${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`,
      );
      expect(page.status).toBe(200);
      seen.push(...idsOf(page.body.experiments).map(String));
      token = page.body.nextPageToken;
    } while (token);
    expect(seen.sort()).toEqual(ids);
    expect((await call('GET', `${P}/paged/experiments?pageSize=-1`)).status).toBe(400);
  });

  it('refuses the page token of another list (another filter or parent) with INVALID_ARGUMENT naming pageToken', async () => {
    await createPolicy('tokens');
    for (const id of ['t1', 't2', 't3']) await createExperiment('tokens', id);
    const first = await call('GET', `${P}/tokens/experiments?pageSize=1`);
    const token = encodeURIComponent(first.body.nextPageToken);
    const active = encodeURIComponent('previewMetadata.state = ACTIVE');
    for (const path of [
      `${P}/tokens/experiments?filter=${active}&pageToken=${token}`,
      `${P}/paged/experiments?pageToken=${token}`,
      `${P}?pageToken=${token}`,
    ]) {
      const refused = await call('GET', path);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({
        status: 'INVALID_ARGUMENT',
        message: 'The page token is not one this query issued.',
        details: expect.arrayContaining([
          {
            '@type': 'type.googleapis.com/google.rpc.BadRequest',
            fieldViolations: [expect.objectContaining({ field: 'pageToken' })],
          },
        ]),
      });
    }
  });
});
