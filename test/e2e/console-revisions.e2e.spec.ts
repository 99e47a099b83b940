import { TrafficEvent } from '@rollout/contracts';
import { eventually } from '@rollout/testing/kit';
import { join } from 'node:path';
import { BLOCK_SSH, LIVE_RULES, P, consoleWorld } from './console-world';

/**
 * The console's views of rule diffs, revisions and rollback, audit request ids, dead letters and
 * the project list, against the built system.
 */
const ARTEFACTS = join(__dirname, '..', '..', 'tmp', 'e2e-artefacts', 'console-revisions');

const sshEvent = (n: number, policy = 'edge'): TrafficEvent => ({
  id: `revisions-${policy}-${n}`,
  time: new Date(Date.now() - n * 1_000).toISOString(),
  direction: 'INGRESS',
  srcIp: `198.51.100.${(n % 3) + 1}`,
  destIp: '10.0.0.5',
  protocol: 'tcp',
  srcPort: 40_000 + n,
  destPort: 22,
});

describe('the web console: what a commit changes, revisions, rollback, dead letters', () => {
  const world = consoleWorld({ artefacts: ARTEFACTS, height: 800, token: true });
  const { api, shoot, expectAccessible, publish, browserErrors, failedResponses } = world;
  const at = (fragment: string) =>
    world.page.goto(`${world.system.urls.gateway}/console/#${fragment}`);
  /** The x-request-id the console sent with its latest `method path` call. */
  const requestIdOf = (method: string, path: string) =>
    world.requests.findLast((r) => r.method === method && r.path === path)?.requestId;

  beforeAll(async () => {
    await api('POST', `${P}?firewallPolicyId=edge`, { rules: LIVE_RULES });
    await api('POST', `${P}/edge/experiments?experimentId=block-ssh`, {
      firewallPolicy: { rules: [BLOCK_SSH, ...LIVE_RULES] },
    });
    await api('POST', `${P}/edge/experiments/block-ssh:startPreview`);
  }, 60_000);

  it('picks the project from the gateway’s list, and shows a typo’d policy id’s dead letters there', async () => {
    await publish([sshEvent(1, 'egde'), sshEvent(2, 'egde')], 'egde');
    await at('/');
    const picker = world.page.getByRole('combobox', { name: 'Project' });
    await picker.waitFor();
    expect(await picker.locator('option').allInnerTexts()).toEqual([
      'acme (1 policy)',
      'Another project…',
    ]);
    await world.page.getByRole('button', { name: 'Show policies' }).click();
    await world.page.getByRole('heading', { name: 'Live policies of acme in global' }).waitFor();
    await eventually(
      async () => {
        await world.page.reload();
        await world.page.getByRole('region', { name: 'Live policies' }).waitFor();
        const panel = world.page.getByRole('region', { name: 'Dead letters by policy' });
        return (await panel.count()) && /egde.*no such policy/.test(await panel.innerText())
          ? true
          : undefined;
      },
      { timeoutMs: 30_000, what: 'the dead letters of the typo’d policy id' },
    );
    expect(await world.page.locator('[data-metric="deadLetters"]').innerText()).toMatch(
      /^2 traffic messages could not be evaluated\.$/,
    );
    await shoot('1-policies-dead-letters');
    await expectAccessible('policies with dead letters');

    // The real policy has none: no panel on its world.page.
    const ownDeadLetters = world.page.waitForResponse((response) =>
      response.url().endsWith('/deadLetters?policy=edge'),
    );
    await world.page.getByRole('link', { name: 'edge', exact: true }).click();
    await world.page.getByRole('heading', { name: 'Policy edge' }).waitFor();
    expect((await (await ownDeadLetters).json()).total).toBe(0);
    await world.page.getByRole('region', { name: 'Experiments of edge' }).waitFor();
    expect(await world.page.getByRole('heading', { name: 'Dead letters' }).count()).toBe(0);
  }, 60_000);

  it('opens the report on the rule diff, coloured, with what it does in words', async () => {
    await publish(Array.from({ length: 9 }, (_, n) => sshEvent(n)));
    await at('/projects/acme/locations/global/firewallPolicies/edge/experiments/block-ssh/report');
    const diff = world.page.getByRole('region', { name: 'Rules the experiment changes' });
    await diff.waitFor();
    expect(await diff.locator('tbody tr').allInnerTexts()).toEqual([
      expect.stringMatching(/^\+ added\s+900\s+INGRESS deny tcp\/22 from 0\.0\.0\.0\/0/),
    ]);
    expect(await diff.locator('tr.diff-added').count()).toBe(1);
    expect(await world.page.locator('#section-what-changes .semantic').innerText()).toMatch(
      /^Now denied: .*22/,
    );
    await shoot('2-report-diff');
    await expectAccessible('report with the diff');
  });

  it('commits with the diff and report version shown, and the revision names the call and its experiment', async () => {
    await world.page.locator('[data-metric="evaluated"]').waitFor();
    await world.page.getByRole('button', { name: 'Commit…' }).click();
    const dialog = world.page.getByRole('dialog');
    await dialog.getByRole('region', { name: 'Rules the commit changes' }).waitFor();
    await dialog.locator('[data-metric="reportEtag"] code').waitFor();
    await expectAccessible('commit dialog');
    await dialog.getByRole('button', { name: 'Commit', exact: true }).click();
    await world.page.getByRole('heading', { name: 'Policy edge' }).waitFor();
    const commitId = requestIdOf('POST', `${P}/edge/experiments/block-ssh:commit`);

    await world.page.getByRole('link', { name: 'Revisions' }).click();
    const revisions = world.page.getByRole('region', { name: 'Revisions' });
    await revisions.waitFor();
    const rows = await revisions.locator('tbody tr').allInnerTexts();
    expect(rows).toEqual([
      expect.stringMatching(/^2\s.*development-admin\s+commit of experiment block-ssh/),
      expect.stringMatching(/^1\s.*policy created/),
    ]);
    expect(rows[0]).toContain(commitId);
    expect(rows[0]).toMatch(/current/);
    await shoot('3-revisions');
    await expectAccessible('revisions');

    // The committed experiment's history is one link away, with the commit's request id.
    await revisions.getByRole('link', { name: 'its history' }).click();
    const history = world.page.getByRole('region', { name: 'Experiment block-ssh' });
    await history.waitFor();
    expect(await history.innerText()).toContain(commitId);
  });

  it('rolls back behind a confirmation that shows what it changes and the etag it needs', async () => {
    await at('/projects/acme/locations/global/firewallPolicies/edge/revisions');
    const live = (await api('GET', `${P}/edge`)).body as { etag: string };
    await world.page.getByRole('button', { name: 'Roll back to 1…' }).click();
    const dialog = world.page.getByRole('dialog');
    const diff = dialog.getByRole('region', { name: 'Rules the rollback changes' });
    await diff.waitFor();
    expect(await diff.locator('tbody tr').allInnerTexts()).toEqual([
      expect.stringMatching(/^− removed\s+900\s+INGRESS deny tcp\/22/),
    ]);
    expect(await dialog.locator('code').first().innerText()).toBe(live.etag);
    await expectAccessible('rollback confirmation');
    await dialog.getByRole('button', { name: 'Roll back' }).click();
    await world.page.getByText('Rolled back to revision 1.').waitFor();
    expect((await api('GET', `${P}/edge`)).body.rules).toEqual(LIVE_RULES);
    await eventually(
      async () =>
        /^3\s.*rollback to revision 1/.test(
          await world.page
            .getByRole('region', { name: 'Revisions' })
            .locator('tbody tr')
            .first()
            .innerText(),
        )
          ? true
          : undefined,
      { what: 'the rollback listed as revision 3' },
    );
  });

  it('made no call the gateway refused and no script error', () => {
    expect(failedResponses).toEqual([]);
    expect(browserErrors).toEqual([]);
  });
});
