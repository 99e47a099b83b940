import { TrafficEvent } from '@rollout/contracts';
import { createHash } from 'node:crypto';
import { eventually } from '@rollout/testing/kit';
import { join } from 'node:path';
import { LIVE_RULES, P, consoleWorld, sidewaysOverflow } from './console-world';

/**
 * What the API can do, done in the console (issue 41): the whole-resource diff (policy fields,
 * list fields element by element, rewritten rules), a backtest before any preview, a reason with
 * the commit, a reviewed commit proposed and approved by two editors, a revision's whole
 * resource, two revisions compared and a rollback previewed.
 */
const ARTEFACTS = join(__dirname, '..', '..', 'tmp', 'e2e-artefacts', 'console-actions');
const digest = (token: string) => createHash('sha256').update(token).digest('hex');
/**
 * Configured keys replace the development token, so the console's admin is a key too (under the
 * development token's name), and a second editor, bob, makes a proposal for it to approve.
 */
const ADMIN_TOKEN = 'console-actions-admin-token';
const BOB_TOKEN = 'console-actions-bob-token';
const KEYS = [
  { name: 'development-admin', sha256: digest(ADMIN_TOKEN), roles: ['admin'], projects: '*' },
  { name: 'bob', sha256: digest(BOB_TOKEN), roles: ['editor'], projects: '*' },
];
const UDP_DNS = {
  priority: 2000,
  direction: 'INGRESS',
  action: 'allow',
  match: { srcIpRanges: ['0.0.0.0/0'], layer4Configs: [{ ipProtocol: 'udp', ports: ['53'] }] },
};
/** SSH and HTTPS from the office only; DNS written another way that means the same. */
const OFFICE_RULES = [
  { ...LIVE_RULES[0], match: { ...LIVE_RULES[0].match, srcIpRanges: ['10.0.0.0/8'] } },
  {
    ...UDP_DNS,
    disabled: false,
    match: { srcIpRanges: ['0.0.0.0/0'], layer4Configs: [{ ipProtocol: '17', ports: ['53'] }] },
  },
];
const DESCRIPTION = 'Internet edge';
const OFFICE_DESCRIPTION = 'Internet edge, SSH from the office';
const EXPERIMENT = `${P}/edge/experiments/office-ssh`;

const sshEvent = (n: number): TrafficEvent => ({
  id: `actions-${n}`,
  time: new Date(Date.now() - n * 1_000).toISOString(),
  direction: 'INGRESS',
  srcIp: `198.51.100.${n + 1}`,
  destIp: '10.0.0.5',
  protocol: 'tcp',
  srcPort: 40_000 + n,
  destPort: 22,
});

describe('the web console: every API action of a change, reviewed', () => {
  const world = consoleWorld({
    artefacts: ARTEFACTS,
    height: 800,
    token: true,
    extraEnv: { AUTH_API_KEYS: JSON.stringify(KEYS) },
    adminToken: ADMIN_TOKEN,
  });
  const { api, shoot, expectAccessible, publish, browserErrors, failedResponses } = world;
  const at = (fragment: string) =>
    world.page.goto(`${world.system.urls.gateway}/console/#${fragment}`);
  const asBob = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${world.system.urls.gateway}${path}`, {
      method,
      headers: { authorization: `Bearer ${BOB_TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    await api('POST', `${P}?firewallPolicyId=edge`, {
      displayName: 'Edge',
      description: DESCRIPTION,
      rules: [...LIVE_RULES, UDP_DNS],
    });
    await api('POST', `${P}/edge/experiments?experimentId=office-ssh`, {
      firewallPolicy: { description: OFFICE_DESCRIPTION, rules: OFFICE_RULES },
    });
  }, 60_000);

  it('shows the whole change and backtests it before any preview', async () => {
    await publish(Array.from({ length: 6 }, (_, n) => sshEvent(n)));
    await at('/projects/acme/locations/global/firewallPolicies/edge/experiments/office-ssh');
    await world.page.getByRole('link', { name: 'What it changes, and backtest' }).click();
    await world.page.getByText('No traffic has been evaluated for this experiment yet.').waitFor();

    const diff = world.page.getByRole('region', { name: 'Rules the experiment changes' });
    await diff.waitFor();
    expect(await world.page.locator('[data-metric="diffCounts"]').innerText()).toMatch(
      /: 1 policy field changed, 0 rules added, 0 removed, 1 changed, 1 unchanged \(1 only rewritten\)\.$/,
    );
    expect(await world.page.locator('[data-diff="policyFields"] li').allInnerTexts()).toEqual([
      `description: ${DESCRIPTION} → ${OFFICE_DESCRIPTION}`,
    ]);
    // The list field element by element, not two lists; the rewritten rule is no change.
    expect(await diff.locator('tbody tr').allInnerTexts()).toEqual([
      expect.stringMatching(/^~ changed\s+1000\s+match\.srcIpRanges: /),
      expect.stringMatching(/^= unchanged \(rewritten\)\s+2000\s+INGRESS allow /),
    ]);
    expect(await diff.locator('tr.diff-changed del').allInnerTexts()).toEqual([
      expect.stringMatching(/0\.0\.0\.0\/0$/),
    ]);
    expect(await diff.locator('tr.diff-changed ins').allInnerTexts()).toEqual([
      expect.stringMatching(/10\.0\.0\.0\/8$/),
    ]);
    expect(await world.page.locator('#title-what-changes ~ .semantic').innerText()).toMatch(
      /^Now denied: .*0\.0\.0\.0\/0/,
    );

    await world.page.getByRole('button', { name: 'Backtest on retained traffic' }).click();
    const result = world.page.locator('[data-metric="backtestChanged"]');
    await result.waitFor({ timeout: 30_000 });
    expect(await result.innerText()).toBe(
      'Backtest: 6 of 6 events, 100% change verdict (6 allow → deny, 0 deny → allow).',
    );
    await shoot('1-before-preview');
    await expectAccessible('report before any preview, backtested');
  }, 60_000);

  it('proposes where the project requires review, and another editor approves it with its reason', async () => {
    expect(
      (await api('PATCH', '/v1/projects/acme/settings', { requireCommitReview: true })).status,
    ).toBe(200);
    await world.page.reload();
    await world.page.getByRole('button', { name: 'Commit…' }).click();
    const dialog = world.page.getByRole('dialog');
    await dialog.locator('[data-metric="reviewRequired"]').waitFor();
    await dialog.getByRole('heading', { name: 'Propose to commit office-ssh?' }).waitFor();
    await dialog.locator('[data-diff="policyFields"]').waitFor();
    const words = await dialog.innerText();
    expect(words).toContain('etag');
    expect(words).not.toMatch(/version/i);
    await dialog.getByLabel(/^Reason/).fill('SEC-42: SSH from the office only');
    await dialog.getByRole('button', { name: 'Propose commit' }).click();
    await dialog.getByText(/^Proposed\./).waitFor();
    await expectAccessible('commit dialog, proposed');
    const proposed = (await api('GET', EXPERIMENT)).body.commitProposal as Record<string, unknown>;
    expect(proposed).toMatchObject({
      proposer: 'development-admin',
      reason: 'SEC-42: SSH from the office only',
    });
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    // Bob proposes in turn; the console's editor, not the proposer now, approves.
    const experiment = (await api('GET', EXPERIMENT)).body as { etag: string };
    const live = (await api('GET', `${P}/edge`)).body as { etag: string };
    const bobReason = 'SEC-42 (bob): SSH from the office only';
    expect(
      (
        await asBob('POST', `${EXPERIMENT}:proposeCommit`, {
          etag: experiment.etag,
          livePolicyEtag: live.etag,
          reason: bobReason,
        })
      ).status,
    ).toBe(200);
    await world.page.reload();
    await world.page.getByRole('button', { name: 'Approve…' }).click();
    await dialog.getByRole('heading', { name: 'Approve the commit of office-ssh?' }).waitFor();
    expect(await dialog.locator('[data-metric="commitProposal"]').innerText()).toMatch(
      new RegExp(`^Proposed by bob at .*: “${bobReason.replace(/[()]/g, '\\$&')}”`),
    );
    await dialog.locator('[data-metric="reportEtag"] code').waitFor();
    await shoot('2-approve');
    await expectAccessible('commit dialog, approving');
    await dialog.getByRole('button', { name: 'Approve', exact: true }).click();
    await world.page.getByRole('heading', { name: 'Policy edge' }).waitFor();

    const policy = (await api('GET', `${P}/edge`)).body;
    expect(policy).toMatchObject({ displayName: 'Edge', description: OFFICE_DESCRIPTION });
    const [revision] = (await api('GET', `${P}/edge/revisions`)).body.revisions as {
      source: Record<string, unknown>;
    }[];
    expect(revision.source).toMatchObject({
      kind: 'commit',
      reason: bobReason,
      review: { proposer: 'bob', approver: 'development-admin' },
    });
  }, 60_000);

  it('shows a revision’s whole resource, compares two revisions, and previews a rollback', async () => {
    await at('/projects/acme/locations/global/firewallPolicies/edge/revisions');
    await world.page.getByRole('button', { name: 'View 2' }).click();
    const shown = world.page.getByRole('region', { name: 'Revision 2', exact: true });
    expect(await shown.locator('dd[data-field]').allInnerTexts()).toEqual([
      'Edge',
      OFFICE_DESCRIPTION,
      'SEC-42 (bob): SSH from the office only',
    ]);
    expect(
      await shown
        .getByRole('region', { name: 'Rules of revision 2' })
        .locator('tbody tr')
        .allInnerTexts(),
    ).toEqual([expect.stringMatching(/^1000\s.*10\.0\.0\.0\/8/), expect.stringMatching(/^2000\s/)]);

    const compare = world.page.getByRole('region', { name: 'Compare any two' });
    await compare.getByLabel('From').selectOption('1');
    await compare.getByLabel('To').selectOption('2');
    await compare.getByRole('button', { name: 'Compare' }).click();
    const compared = compare.getByRole('region', { name: 'Rules from revision 1 to 2' });
    await compared.waitFor();
    expect(await compared.locator('tbody tr').allInnerTexts()).toEqual([
      expect.stringMatching(/^~ changed\s+1000\s+match\.srcIpRanges: /),
      expect.stringMatching(/^= unchanged \(rewritten\)\s+2000/),
    ]);
    expect(await compare.locator('[data-diff="policyFields"] li').allInnerTexts()).toEqual([
      `description: ${DESCRIPTION} → ${OFFICE_DESCRIPTION}`,
    ]);
    await shoot('3-revisions-compared');
    await expectAccessible('revision shown and two compared');

    await world.page.getByRole('button', { name: 'Preview rollback to 1' }).click();
    await world.page.getByRole('heading', { name: /^Preview report of rollback-to-1-/ }).waitFor();
    await world.page.locator('[data-diff="policyFields"]').waitFor();
    expect(await world.page.locator('[data-diff="policyFields"] li').allInnerTexts()).toEqual([
      `description: ${OFFICE_DESCRIPTION} → ${DESCRIPTION}`,
    ]);
    expect(
      await world.page
        .getByRole('region', { name: 'Rules the experiment changes' })
        .locator('tr.diff-changed ins')
        .allInnerTexts(),
    ).toEqual([expect.stringMatching(/0\.0\.0\.0\/0$/)]);
    await world.page.getByRole('button', { name: 'Backtest on retained traffic' }).waitFor();
    await shoot('4-rollback-preview');

    await world.page.setViewportSize({ width: 390, height: 844 });
    try {
      await expectAccessible('rollback preview at 390 px');
      await at('/projects/acme/locations/global/firewallPolicies/edge/revisions');
      await world.page.getByRole('region', { name: 'Compare any two' }).waitFor();
      // Each revision a card: its request id and its buttons within the screen, no sideways scroll.
      const revisions = world.page.getByRole('region', { name: 'Revisions' });
      await revisions.locator('tr[data-revision]').first().waitFor();
      expect(
        await sidewaysOverflow(
          world.page,
          '[aria-label="Revisions"], tr[data-revision], tr[data-revision] td',
        ),
      ).toEqual([]);
      expect(
        await revisions.locator('tr[data-revision="2"] td[data-label="Request id"]').innerText(),
      ).toMatch(/^[0-9a-f-]{36}$/);
      await shoot('5-revisions-phone');
      await expectAccessible('revisions at 390 px');
    } finally {
      await world.page.setViewportSize({ width: 1280, height: 800 });
    }
  }, 60_000);

  it('moves the project picker with the address (back, forward, a pasted link)', async () => {
    await api('POST', '/v1/projects/beta/locations/global/firewallPolicies?firewallPolicyId=web', {
      rules: LIVE_RULES,
    });
    const picker = world.page.getByRole('combobox', { name: 'Project' });
    // The picker follows the page's address on the render after it (an effect), as a user sees it settle.
    const pickerShows = (project: string) =>
      eventually(async () => ((await picker.inputValue()) === project ? true : undefined), {
        timeoutMs: 5_000,
        what: `the project picker showing ${project}`,
      });
    await at('/projects/beta/locations/global/firewallPolicies');
    await world.page.getByRole('heading', { name: 'Live policies of beta in global' }).waitFor();
    await world.page
      .getByRole('option', { name: 'beta (1 policy)' })
      .waitFor({ state: 'attached' });
    await pickerShows('beta');
    await at('/projects/acme/locations/global/firewallPolicies');
    await world.page.getByRole('heading', { name: 'Live policies of acme in global' }).waitFor();
    await pickerShows('acme');
    await world.page.goBack();
    await world.page.getByRole('heading', { name: 'Live policies of beta in global' }).waitFor();
    await pickerShows('beta');
  });

  it('made no call the gateway refused and no script error', () => {
    expect(failedResponses).toEqual([]);
    expect(browserErrors).toEqual([]);
  });
});
