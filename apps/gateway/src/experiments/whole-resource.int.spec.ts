import { ACME_EDITOR_TOKEN, P, experimentsSystem } from '../../test/experiments-system';

// Issue 41: a commit replaces the whole resource and everything shows it; a diff reads like a
// reviewed plan; the why and the who of a commit are kept.
const { call } = experimentsSystem();

const ssh = (
  priority: number,
  action: 'allow' | 'deny',
  srcIpRanges: string[],
  ports = ['22'],
) => ({
  priority,
  direction: 'INGRESS',
  action,
  match: { srcIpRanges, layer4Configs: [{ ipProtocol: 'tcp', ports }] },
});
const OPEN = [ssh(100, 'allow', ['0.0.0.0/0'])];
const NAMED = { displayName: 'Internet edge', description: 'Web tier, SSH from anywhere' };

async function livePolicy(id: string, rules: unknown[] = OPEN) {
  const created = await call('POST', `${P}?firewallPolicyId=${id}`, { ...NAMED, rules });
  expect(created.status).toBe(200);
  return created.body;
}
async function experiment(policy: string, id: string, body: unknown, token?: string) {
  const created = await call('POST', `${P}/${policy}/experiments?experimentId=${id}`, body, token);
  expect(created.status).toBe(200);
  return created.body.response;
}

describe('the whole resource', () => {
  it('a rules-only experiment starts as a copy of the live policy, so its commit keeps the display name and description', async () => {
    const live = await livePolicy('rules-only');
    const made = await experiment('rules-only', 'empty', { firewallPolicy: { rules: [] } });
    expect(made.firewallPolicy).toMatchObject({ ...NAMED, rules: [] });

    const diff = await call('GET', `${P}/rules-only/experiments/empty:diff`);
    expect(diff.body).toMatchObject({ policyFields: [], removed: OPEN, added: [] });

    const committed = await call('POST', `${P}/rules-only/experiments/empty:commit`, {
      etag: made.etag,
      livePolicyEtag: live.etag,
    });
    expect(committed.status).toBe(200);
    expect((await call('GET', `${P}/rules-only`)).body).toMatchObject({ ...NAMED, rules: [] });
  });

  it('an experiment that drops the description shows it in the diff, and its commit removes it: the experiment is the live resource after a commit (AIP-236)', async () => {
    const live = await livePolicy('dropped');
    const made = await experiment('dropped', 'renamed', {
      firewallPolicy: { displayName: 'Edge (tight)', rules: OPEN },
    });
    const patched = await call(
      'PATCH',
      `${P}/dropped/experiments/renamed?updateMask=firewallPolicy.description`,
      { firewallPolicy: {}, etag: made.etag },
    );
    expect(patched.status).toBe(200);
    const diff = await call('GET', `${P}/dropped/experiments/renamed:diff`);
    expect(diff.body.policyFields).toEqual([
      { field: 'description', before: NAMED.description },
      { field: 'displayName', before: NAMED.displayName, after: 'Edge (tight)' },
    ]);
    expect(diff.body).toMatchObject({ added: [], removed: [], changed: [], unchangedCount: 1 });
    await call('POST', `${P}/dropped/experiments/renamed:commit`, {
      etag: patched.body.response.etag,
      livePolicyEtag: live.etag,
    });
    const after = (await call('GET', `${P}/dropped`)).body;
    expect(after.displayName).toBe('Edge (tight)');
    expect(after).not.toHaveProperty('description');
  });

  it('revisions hold the whole resource; a rollback restores it and an experiment from sourceRevision copies it', async () => {
    const live = await livePolicy('restored');
    const renamed = await call('PATCH', `${P}/restored`, {
      displayName: 'Renamed',
      description: 'SSH closed',
      rules: [],
      etag: live.etag,
    });
    expect((await call('GET', `${P}/restored/revisions/1`)).body).toMatchObject({
      ...NAMED,
      rules: OPEN,
    });
    const back = await call('GET', `${P}/restored:diff?fromRevision=2&toRevision=1`);
    expect(back.body.policyFields.map((f: { field: string }) => f.field)).toEqual([
      'description',
      'displayName',
    ]);

    const preview = await experiment('restored', 'undo', { sourceRevision: '1' });
    expect(preview.firewallPolicy).toMatchObject({ ...NAMED, rules: OPEN });

    const rolledBack = await call('POST', `${P}/restored:rollback`, {
      revisionId: '1',
      etag: renamed.body.etag,
      reason: 'INC-7: the bastion lost SSH',
    });
    expect(rolledBack.status).toBe(200);
    expect((await call('GET', `${P}/restored`)).body).toMatchObject({ ...NAMED, rules: OPEN });
    expect((await call('GET', `${P}/restored/revisions/3`)).body).toMatchObject({
      ...NAMED,
      source: { kind: 'rollback', rolledBackTo: '1', reason: 'INC-7: the bastion lost SSH' },
    });
    const history = (await call('GET', `${P}/restored/events`)).body.events;
    expect(history.at(-1)).toMatchObject({
      type: 'PolicyRolledBack',
      reason: 'INC-7: the bastion lost SSH',
    });
  });
});

describe('a diff that reads like a reviewed plan', () => {
  it('an equivalent rewrite is unchanged (rewritten), never a change to review', async () => {
    const written = {
      priority: 100,
      direction: 'INGRESS',
      action: 'allow',
      match: {
        srcIpRanges: ['10.0.0.0/8', '192.168.0.0/16'],
        layer4Configs: [{ ipProtocol: 'tcp', ports: ['22', '443', '8000-8080'] }],
      },
    };
    const rewritten = {
      ...written,
      disabled: false,
      targetTags: [],
      match: {
        srcIpRanges: ['192.168.0.0/16', '10.128.0.0/9', '10.0.0.0/9'],
        layer4Configs: [
          { ipProtocol: '6', ports: ['8000-8040', '443', '8041-8080'] },
          { ipProtocol: 'tcp', ports: ['22'] },
        ],
      },
    };
    await livePolicy('rewrite', [written]);
    await experiment('rewrite', 'same', { firewallPolicy: { rules: [rewritten] } });
    const diff = await call('GET', `${P}/rewrite/experiments/same:diff`);
    expect(diff.body).toMatchObject({
      policyFields: [],
      added: [],
      removed: [],
      changed: [],
      unchangedCount: 1,
      rewritten: [{ priority: 100, before: written, after: rewritten }],
      semantic: { nowDenied: [], nowAllowed: [] },
    });
  });

  it('a list field is diffed element by element', async () => {
    await livePolicy('ports', [ssh(100, 'allow', ['0.0.0.0/0'], ['22', '443'])]);
    await experiment('ports', 'moved', {
      firewallPolicy: { rules: [ssh(100, 'allow', ['0.0.0.0/0'], ['443', '2222'])] },
    });
    const diff = await call('GET', `${P}/ports/experiments/moved:diff`);
    expect(diff.body.changed).toEqual([
      expect.objectContaining({
        priority: 100,
        fields: [
          expect.objectContaining({
            field: 'match.layer4Configs',
            removedElements: ['tcp/22'],
            addedElements: ['tcp/2222'],
          }),
        ],
      }),
    ]);
  });
});

describe('the why and the who', () => {
  it("a commit keeps its reason and the experiment's annotations in the revision and the history, named as a commit", async () => {
    const live = await livePolicy('why');
    const made = await experiment('why', 'close-ssh', {
      firewallPolicy: { rules: [] },
      annotations: { ticket: 'SEC-42' },
    });
    const committed = await call('POST', `${P}/why/experiments/close-ssh:commit`, {
      etag: made.etag,
      livePolicyEtag: live.etag,
      reason: 'SEC-42: no SSH from the internet',
    });
    expect(committed.status).toBe(200);
    expect((await call('GET', `${P}/why/revisions/2`)).body.source).toMatchObject({
      kind: 'commit',
      reason: 'SEC-42: no SSH from the internet',
      annotations: { ticket: 'SEC-42' },
    });
    const history = (await call('GET', `${P}/why/events`)).body.events;
    expect(history.map((e: { type: string }) => e.type)).toEqual([
      'PolicyCreated',
      'PolicyCommitted',
    ]);
    expect(history[1]).toMatchObject({
      reason: 'SEC-42: no SSH from the internet',
      annotations: { ticket: 'SEC-42' },
    });
    const tooLong = await call('POST', `${P}/why:rollback`, {
      revisionId: '1',
      etag: committed.body.response.etag,
      reason: 'x'.repeat(1001),
    });
    expect(tooLong.status).toBe(400);
  });

  it('with review required, a commit is a proposal another editor approves; the revision keeps both and their request ids', async () => {
    const settings = await call('PATCH', '/v1/projects/acme/settings', {
      requireCommitReview: true,
    });
    expect(settings.status).toBe(200);
    expect(settings.body).toMatchObject({
      name: 'projects/acme/settings',
      requireCommitReview: true,
    });
    // Only an admin changes settings; any editor reads them.
    expect(
      (
        await call(
          'PATCH',
          '/v1/projects/acme/settings',
          { requireCommitReview: false },
          ACME_EDITOR_TOKEN,
        )
      ).status,
    ).toBe(403);
    try {
      const live = await livePolicy('reviewed');
      const made = await experiment('reviewed', 'close-ssh', {
        firewallPolicy: { rules: [] },
        annotations: { ticket: 'SEC-43' },
      });
      const alone = await call('POST', `${P}/reviewed/experiments/close-ssh:commit`, {
        etag: made.etag,
        livePolicyEtag: live.etag,
      });
      expect(alone.status).toBe(400);
      expect(alone.body.error.details).toContainEqual(
        expect.objectContaining({ reason: 'REVIEW_REQUIRED' }),
      );

      const proposed = await call(
        'POST',
        `${P}/reviewed/experiments/close-ssh:proposeCommit`,
        { etag: made.etag, livePolicyEtag: live.etag, reason: 'SEC-43: close SSH' },
        undefined,
        { 'x-request-id': 'propose-1' },
      );
      expect(proposed.status).toBe(200);
      // The proposal does not move the experiment's etag: its preview goes on as it was.
      expect(proposed.body.response).toMatchObject({
        etag: made.etag,
        commitProposal: {
          proposer: 'test-admin',
          requestId: 'propose-1',
          experimentEtag: made.etag,
        },
      });
      expect(
        (await call('GET', `${P}/reviewed/experiments/close-ssh`)).body.commitProposal,
      ).toMatchObject({
        proposer: 'test-admin',
        reason: 'SEC-43: close SSH',
      });

      const self = await call('POST', `${P}/reviewed/experiments/close-ssh:approveCommit`, {
        etag: made.etag,
      });
      expect(self.status).toBe(403);
      expect(self.body.error.details).toContainEqual(
        expect.objectContaining({ reason: 'SELF_APPROVAL' }),
      );

      const approved = await call(
        'POST',
        `${P}/reviewed/experiments/close-ssh:approveCommit`,
        { etag: made.etag, livePolicyEtag: live.etag },
        ACME_EDITOR_TOKEN,
        { 'x-request-id': 'approve-1' },
      );
      expect(approved.status).toBe(200);
      expect(approved.body.response).toMatchObject({ ...NAMED, rules: [] });
      const revision = (await call('GET', `${P}/reviewed/revisions/2`)).body;
      expect(revision).toMatchObject({
        actor: 'acme-editor',
        requestId: 'approve-1',
        source: {
          kind: 'commit',
          reason: 'SEC-43: close SSH',
          annotations: { ticket: 'SEC-43' },
          review: {
            proposer: 'test-admin',
            proposerRequestId: 'propose-1',
            approver: 'acme-editor',
            approverRequestId: 'approve-1',
          },
        },
      });
    } finally {
      await call('PATCH', '/v1/projects/acme/settings', { requireCommitReview: false });
    }
  });

  it('a change of the experiment drops its proposal: the approval of what was proposed is refused', async () => {
    const live = await livePolicy('dropped-proposal');
    const made = await experiment('dropped-proposal', 'e', { firewallPolicy: { rules: [] } });
    const proposed = await call('POST', `${P}/dropped-proposal/experiments/e:proposeCommit`, {
      etag: made.etag,
      livePolicyEtag: live.etag,
    });
    expect(proposed.status).toBe(200);
    const patched = await call('PATCH', `${P}/dropped-proposal/experiments/e`, {
      firewallPolicy: { rules: OPEN },
      etag: made.etag,
    });
    const newEtag = patched.body.response.etag;
    expect((await call('GET', `${P}/dropped-proposal/experiments/e`)).body).not.toHaveProperty(
      'commitProposal',
    );
    const stale = await call(
      'POST',
      `${P}/dropped-proposal/experiments/e:approveCommit`,
      { etag: made.etag },
      ACME_EDITOR_TOKEN,
    );
    expect(stale.status).toBe(409);
    const unproposed = await call(
      'POST',
      `${P}/dropped-proposal/experiments/e:approveCommit`,
      { etag: newEtag },
      ACME_EDITOR_TOKEN,
    );
    expect(unproposed.status).toBe(400);
    expect(unproposed.body.error.details).toContainEqual(
      expect.objectContaining({ reason: 'NO_COMMIT_PROPOSAL' }),
    );
    expect((await call('GET', `${P}/dropped-proposal`)).body.rules).toEqual(OPEN);
  });
});
