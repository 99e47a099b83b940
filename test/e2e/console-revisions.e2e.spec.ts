import AxeBuilder from '@axe-core/playwright';
import { TrafficEvent, trafficSubject } from '@rollout/contracts';
import { RunningSystem, launch } from '@rollout/launcher';
import { NatsNamespace } from '@rollout/platform/nats';
import { TEST_NATS_URL, eventually } from '@rollout/testing/kit';
import { NatsConnection, connect } from 'nats';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, Page, chromium } from 'playwright-core';
import { DIST, gatewayApi, isolatedSettings, removeRun } from './support';

/**
 * The console's views of rule diffs, revisions and rollback, audit request ids, dead letters and
 * the project list, against the built system. These endpoints come with the gateway of the
 * "know what you commit, and undo it" work: this spec needs that backend merged.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTEFACTS = join(__dirname, '..', '..', 'tmp', 'e2e-artefacts', 'console-revisions');
const P = '/v1/projects/acme/locations/global/firewallPolicies';
const LIVE_RULES = [
  {
    priority: 1000,
    direction: 'INGRESS',
    action: 'allow',
    match: {
      srcIpRanges: ['0.0.0.0/0'],
      layer4Configs: [{ ipProtocol: 'tcp', ports: ['22', '443'] }],
    },
  },
];
const BLOCK_SSH = {
  priority: 900,
  direction: 'INGRESS',
  action: 'deny',
  match: { srcIpRanges: ['0.0.0.0/0'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] },
};

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
  let system: RunningSystem;
  let database: string;
  let ns: NatsNamespace;
  let nc: NatsConnection;
  let browser: Browser;
  let page: Page;
  const browserErrors: string[] = [];
  const failedResponses: string[] = [];
  /** `METHOD path` → the x-request-id the console sent with it, latest first. */
  const requestIds = new Map<string, string>();
  const api = (method: string, path: string, body?: unknown) =>
    gatewayApi(system)(method, path, body);
  const at = (fragment: string) => page.goto(`${system.urls.gateway}/console/#${fragment}`);
  const shoot = (name: string) =>
    page.screenshot({ path: join(ARTEFACTS, `${name}.png`), fullPage: true });
  async function expectAccessible(what: string) {
    const { violations } = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
      .analyze();
    const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect({ what, violations: serious.map((v) => `${v.id}: ${v.help}`) }).toEqual({
      what,
      violations: [],
    });
  }
  async function publish(events: TrafficEvent[], policy = 'edge') {
    const subject = ns.subject(trafficSubject('acme', 'global', policy));
    const js = nc.jetstream();
    await Promise.all(events.map((e) => js.publish(subject, JSON.stringify(e), { msgID: e.id })));
  }

  beforeAll(async () => {
    mkdirSync(ARTEFACTS, { recursive: true });
    const isolated = await isolatedSettings();
    database = isolated.database;
    ns = new NatsNamespace(isolated.namespace);
    system = await launch({
      settings: isolated.settings,
      distRoot: DIST,
      extraEnv: { NATS_NAMESPACE: isolated.namespace, LOG_LEVEL: 'silent' },
      log: () => undefined,
    });
    nc = await connect({ servers: TEST_NATS_URL });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-dev-shm-usage'],
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript(
      `sessionStorage.setItem('policy-rollout.token', ${JSON.stringify(system.devToken)})`,
    );
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (error) => browserErrors.push(error.message));
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/v1/'))
        requestIds.set(
          `${request.method()} ${url.pathname}`,
          request.headers()['x-request-id'] ?? 'none',
        );
    });
    page.on('response', (response) => {
      if (response.status() >= 400)
        failedResponses.push(
          `${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`,
        );
    });

    await api('POST', `${P}?firewallPolicyId=edge`, { rules: LIVE_RULES });
    await api('POST', `${P}/edge/experiments?experimentId=block-ssh`, {
      firewallPolicy: { rules: [BLOCK_SSH, ...LIVE_RULES] },
    });
    await api('POST', `${P}/edge/experiments/block-ssh:startPreview`);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await nc?.close();
    await system?.stop();
    if (database) await removeRun(database);
  }, 60_000);

  it('picks the project from the gateway’s list, and shows a typo’d policy id’s dead letters there', async () => {
    await publish([sshEvent(1, 'egde'), sshEvent(2, 'egde')], 'egde');
    await at('/');
    const picker = page.getByRole('combobox', { name: 'Project' });
    await picker.waitFor();
    expect(await picker.locator('option').allInnerTexts()).toEqual([
      'acme (1 policy)',
      'Another project…',
    ]);
    await page.getByRole('button', { name: 'Show policies' }).click();
    await page.getByRole('heading', { name: 'Live policies of acme in global' }).waitFor();
    await eventually(
      async () => {
        await page.reload();
        await page.getByRole('region', { name: 'Live policies' }).waitFor();
        const panel = page.getByRole('region', { name: 'Dead letters by policy' });
        return (await panel.count()) && /egde.*no such policy/.test(await panel.innerText())
          ? true
          : undefined;
      },
      { timeoutMs: 30_000, what: 'the dead letters of the typo’d policy id' },
    );
    expect(await page.locator('[data-metric="deadLetters"]').innerText()).toMatch(
      /^2 traffic messages could not be evaluated\.$/,
    );
    await shoot('1-policies-dead-letters');
    await expectAccessible('policies with dead letters');

    // The real policy has none: no panel on its page.
    const ownDeadLetters = page.waitForResponse((response) =>
      response.url().endsWith('/deadLetters?policy=edge'),
    );
    await page.getByRole('link', { name: 'edge', exact: true }).click();
    await page.getByRole('heading', { name: 'Policy edge' }).waitFor();
    expect((await (await ownDeadLetters).json()).total).toBe(0);
    await page.getByRole('region', { name: 'Experiments of edge' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Dead letters' }).count()).toBe(0);
  }, 60_000);

  it('opens the report on the rule diff, coloured, with what it does in words', async () => {
    await publish(Array.from({ length: 9 }, (_, n) => sshEvent(n)));
    await at('/projects/acme/locations/global/firewallPolicies/edge/experiments/block-ssh/report');
    const diff = page.getByRole('region', { name: 'Rules the experiment changes' });
    await diff.waitFor();
    expect(await diff.locator('tbody tr').allInnerTexts()).toEqual([
      expect.stringMatching(/^\+ added\s+900\s+INGRESS deny tcp\/22 from 0\.0\.0\.0\/0/),
    ]);
    expect(await diff.locator('tr.diff-added').count()).toBe(1);
    expect(await page.locator('#section-what-changes .semantic').innerText()).toMatch(
      /^Now denied: .*22/,
    );
    await shoot('2-report-diff');
    await expectAccessible('report with the diff');
  });

  it('commits with the diff and report version shown, and the revision names the call and its experiment', async () => {
    await page.locator('[data-metric="evaluated"]').waitFor();
    await page.getByRole('button', { name: 'Commit…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('region', { name: 'Rules the commit changes' }).waitFor();
    await dialog.locator('[data-metric="reportEtag"] code').waitFor();
    await expectAccessible('commit dialog');
    await dialog.getByRole('button', { name: 'Commit', exact: true }).click();
    await page.getByRole('heading', { name: 'Policy edge' }).waitFor();
    const commitId = requestIds.get(`POST ${P}/edge/experiments/block-ssh:commit`);

    await page.getByRole('link', { name: 'Revisions' }).click();
    const revisions = page.getByRole('region', { name: 'Revisions' });
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
    const history = page.getByRole('region', { name: 'Experiment block-ssh' });
    await history.waitFor();
    expect(await history.innerText()).toContain(commitId);
  });

  it('rolls back behind a confirmation that shows what it changes and the etag it needs', async () => {
    await at('/projects/acme/locations/global/firewallPolicies/edge/revisions');
    const live = (await api('GET', `${P}/edge`)).body as { etag: string };
    await page.getByRole('button', { name: 'Roll back to 1…' }).click();
    const dialog = page.getByRole('dialog');
    const diff = dialog.getByRole('region', { name: 'Rules the rollback changes' });
    await diff.waitFor();
    expect(await diff.locator('tbody tr').allInnerTexts()).toEqual([
      expect.stringMatching(/^− removed\s+900\s+INGRESS deny tcp\/22/),
    ]);
    expect(await dialog.locator('code').first().innerText()).toBe(live.etag);
    await expectAccessible('rollback confirmation');
    await dialog.getByRole('button', { name: 'Roll back' }).click();
    await page.getByText('Rolled back to revision 1.').waitFor();
    expect((await api('GET', `${P}/edge`)).body.rules).toEqual(LIVE_RULES);
    await eventually(
      async () =>
        /^3\s.*rollback to revision 1/.test(
          await page
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
