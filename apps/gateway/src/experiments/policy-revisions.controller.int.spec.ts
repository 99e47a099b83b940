import { OTHER_TEAM_TOKEN, P, experimentsSystem } from '../../test/experiments-system';

const { call, createExperiment, createPolicy } = experimentsSystem();

const ssh = (priority: number, action: 'allow' | 'deny', srcIpRanges: string[]) => ({
  priority,
  direction: 'INGRESS',
  action,
  match: { srcIpRanges, layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] },
});
const OPEN = [ssh(100, 'allow', ['0.0.0.0/0'])];
const OFFICE_ONLY = [ssh(100, 'allow', ['10.0.0.0/8']), ssh(200, 'deny', ['0.0.0.0/0'])];

async function commit(policy: string, experiment: string, etag: string, livePolicyEtag: string) {
  return call('POST', `${P}/${policy}/experiments/${experiment}:commit`, { etag, livePolicyEtag });
}

describe('rule diff', () => {
  it("shows an experiment's changes against the live rules, field by field and in words", async () => {
    const live = await createPolicy('diffed', OPEN);
    const experiment = await createExperiment('diffed', 'office-ssh', OFFICE_ONLY);
    const diff = await call('GET', `${P}/diffed/experiments/office-ssh:diff`);
    expect(diff.status).toBe(200);
    expect(diff.body).toMatchObject({
      from: { revision: '1', etag: live.etag, label: 'live policy (revision 1)' },
      to: { etag: experiment.etag, label: 'experiment office-ssh' },
      added: [OFFICE_ONLY[1]],
      removed: [],
      changed: [
        {
          priority: 100,
          fields: [
            {
              field: 'match.srcIpRanges',
              before: ['0.0.0.0/0'],
              after: ['10.0.0.0/8'],
              removedElements: ['0.0.0.0/0'],
              addedElements: ['10.0.0.0/8'],
            },
          ],
        },
      ],
      unchangedCount: 0,
      semantic: {
        nowDenied: [{ summary: 'tcp/22 from 0.0.0.0/0 is now denied, except 10.0.0.0/8' }],
        nowAllowed: [],
        truncated: false,
      },
    });
    expect((await call('GET', `${P}/diffed/experiments/nope:diff`)).status).toBe(404);
    // The plain GET of the experiment still answers beside its :diff.
    expect((await call('GET', `${P}/diffed/experiments/office-ssh`)).body.etag).toBe(
      experiment.etag,
    );
  });
});

describe('revisions and rollback', () => {
  it('records create, commit and rollback as revisions with their rules, source and request id; diffs between them', async () => {
    const live = await createPolicy('undo', OPEN);
    const experiment = await createExperiment('undo', 'tighten', OFFICE_ONLY);
    const committed = await call(
      'POST',
      `${P}/undo/experiments/tighten:commit`,
      { etag: experiment.etag, livePolicyEtag: live.etag },
      undefined,
      { 'x-request-id': 'commit-trace-1' },
    );
    expect(committed.status).toBe(200);

    const listed = await call('GET', `${P}/undo/revisions`);
    expect(listed.body.revisions).toEqual([
      expect.objectContaining({
        name: `${live.name}/revisions/2`,
        revisionId: '2',
        actor: 'test-admin',
        requestId: 'commit-trace-1',
        source: {
          kind: 'commit',
          experiment: experiment.name,
          experimentEtag: experiment.etag,
        },
        etag: committed.body.response.etag,
        rules: OFFICE_ONLY,
      }),
      expect.objectContaining({ revisionId: '1', source: { kind: 'create' }, rules: OPEN }),
    ]);

    const back = await call('GET', `${P}/undo:diff?fromRevision=2&toRevision=1`);
    expect(back.body.semantic.nowAllowed.map((c: { summary: string }) => c.summary)).toEqual([
      'tcp/22 from 0.0.0.0/0 is now allowed, except 10.0.0.0/8',
    ]);

    const rolledBack = await call('POST', `${P}/undo:rollback`, {
      revisionId: '1',
      etag: committed.body.response.etag,
    });
    expect(rolledBack.status).toBe(200);
    expect(rolledBack.body.response.rules).toEqual(OPEN);
    expect((await call('GET', `${P}/undo`)).body.rules).toEqual(OPEN);
    const third = await call('GET', `${P}/undo/revisions/3`);
    expect(third.body).toMatchObject({
      revisionId: '3',
      source: { kind: 'rollback', rolledBackTo: '1' },
      rules: OPEN,
    });
    // History is never rewritten: revision 2 is still there, with its rules.
    expect((await call('GET', `${P}/undo/revisions/2`)).body.rules).toEqual(OFFICE_ONLY);
    const current = await call('GET', `${P}/undo:diff?fromRevision=2`);
    expect(current.body.to).toMatchObject({ revision: '3' });
  });

  it('pages revisions newest first', async () => {
    const live = await createPolicy('paged', OPEN);
    let etag = live.etag as string;
    for (const name of ['a', 'b']) {
      const updated = await call('PATCH', `${P}/paged`, { displayName: name, etag });
      etag = updated.body.etag;
    }
    const first = await call('GET', `${P}/paged/revisions?pageSize=2`);
    expect(first.body.revisions.map((r: { revisionId: string }) => r.revisionId)).toEqual([
      '3',
      '2',
    ]);
    const second = await call(
      'GET',
      `${P}/paged/revisions?pageSize=2&pageToken=${first.body.nextPageToken}`,
    );
    expect(second.body.revisions.map((r: { revisionId: string }) => r.revisionId)).toEqual(['1']);
    expect(second.body.nextPageToken).toBeUndefined();
  });

  it('refuses a stale etag, an unknown revision or bad input, and changes nothing', async () => {
    const live = await createPolicy('refused', OPEN);
    const updated = await call('PATCH', `${P}/refused`, { rules: OFFICE_ONLY, etag: live.etag });
    const stale = await call('POST', `${P}/refused:rollback`, { revisionId: '1', etag: live.etag });
    expect(stale.status).toBe(409);
    expect(stale.body.error.status).toBe('ABORTED');
    const unknown = await call('POST', `${P}/refused:rollback`, {
      revisionId: '9',
      etag: updated.body.etag,
    });
    expect(unknown.status).toBe(404);
    expect((await call('POST', `${P}/refused:rollback`, { revisionId: '1' })).status).toBe(400);
    expect((await call('GET', `${P}/refused:diff`)).status).toBe(400);
    expect((await call('GET', `${P}/refused/revisions/abc`)).status).toBe(400);
    expect((await call('GET', `${P}/refused:diff?fromRevision=7`)).status).toBe(404);
    expect((await call('GET', `${P}/refused`)).body).toEqual(updated.body);
    expect((await call('GET', `${P}/refused/revisions`)).body.revisions).toHaveLength(2);
  });

  it('a concurrent commit and rollback on one etag: one wins, the other is ABORTED and changes nothing', async () => {
    for (let round = 0; round < 5; round++) {
      const id = `race-${round}`;
      const live = await createPolicy(id, OPEN);
      const updated = await call('PATCH', `${P}/${id}`, { rules: [], etag: live.etag });
      const experiment = await createExperiment(id, 'tighten', OFFICE_ONLY);
      const [committed, rolledBack] = await Promise.all([
        commit(id, 'tighten', experiment.etag, updated.body.etag),
        call('POST', `${P}/${id}:rollback`, { revisionId: '1', etag: updated.body.etag }),
      ]);
      const statuses = [committed.status, rolledBack.status].sort();
      expect(statuses).toEqual([200, 409]);
      const loser = committed.status === 409 ? committed : rolledBack;
      expect(loser.body.error).toMatchObject({
        status: 'ABORTED',
        details: expect.arrayContaining([expect.objectContaining({ reason: 'ETAG_MISMATCH' })]),
      });
      const revisions = (await call('GET', `${P}/${id}/revisions`)).body.revisions;
      expect(revisions.map((r: { revisionId: string }) => r.revisionId)).toEqual(['3', '2', '1']);
      const winnerRules = committed.status === 200 ? OFFICE_ONLY : OPEN;
      expect((await call('GET', `${P}/${id}`)).body.rules).toEqual(winnerRules);
      // The loser changed nothing: a losing commit leaves its experiment in place.
      const experimentNow = await call('GET', `${P}/${id}/experiments/tighten`);
      expect(experimentNow.status).toBe(committed.status === 200 ? 404 : 200);
    }
  });

  it('creates an experiment from a revision, so a rollback can be previewed', async () => {
    const live = await createPolicy('preview-undo', OPEN);
    await call('PATCH', `${P}/preview-undo`, { rules: OFFICE_ONLY, etag: live.etag });
    const created = await call('POST', `${P}/preview-undo/experiments?experimentId=undo`, {
      sourceRevision: '1',
    });
    expect(created.status).toBe(200);
    expect(created.body.response.firewallPolicy.rules).toEqual(OPEN);
    const both = await call('POST', `${P}/preview-undo/experiments?experimentId=both`, {
      sourceRevision: '1',
      firewallPolicy: { rules: OPEN },
    });
    expect(both.status).toBe(400);
  });
});

describe('audit', () => {
  it("keeps a committed experiment's history readable, each entry with the x-request-id of its call", async () => {
    const live = await createPolicy('audited', OPEN);
    const created = await call(
      'POST',
      `${P}/audited/experiments?experimentId=kept&requestId=create-1`,
      { firewallPolicy: { rules: OFFICE_ONLY } },
      undefined,
      { 'x-request-id': 'trace-create' },
    );
    await call(
      'POST',
      `${P}/audited/experiments/kept:commit`,
      { etag: created.body.response.etag, livePolicyEtag: live.etag },
      undefined,
      { 'x-request-id': 'trace-commit' },
    );
    const history = await call('GET', `${P}/audited/experiments/kept/events`);
    expect(history.status).toBe(200);
    expect(history.body.events).toEqual([
      expect.objectContaining({
        type: 'ExperimentCreated',
        requestId: 'trace-create',
        commandRequestId: 'create-1',
      }),
      expect.objectContaining({ type: 'ExperimentCommitted', requestId: 'trace-commit' }),
    ]);
    const policyHistory = await call('GET', `${P}/audited/events`);
    expect(policyHistory.body.events.at(-1)).toMatchObject({
      type: 'PolicyCommitted',
      requestId: 'trace-commit',
    });
  });
});

describe('projects', () => {
  it('lists the projects holding policies that the caller may see, with their counts', async () => {
    const all = await call('GET', '/v1/projects');
    expect(all.status).toBe(200);
    expect(all.body.projects).toContainEqual({
      projectId: 'acme',
      policyCount: expect.any(Number),
    });
    const scoped = await call('GET', '/v1/projects', undefined, OTHER_TEAM_TOKEN);
    expect(scoped.body).toEqual({ projects: [] });
  });
});
