import AxeBuilder from '@axe-core/playwright';
import { TrafficEvent, trafficSubject } from '@rollout/contracts';
import { RunningSystem, launch } from '@rollout/launcher';
import { NatsNamespace } from '@rollout/platform/nats';
import { TEST_NATS_URL } from '@rollout/testing/kit';
import { NatsConnection, connect } from 'nats';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, Page, chromium } from 'playwright-core';
import { DIST, gatewayApi, isolatedSettings, removeRun } from './support';

/** Debian's chromium (apt-get install chromium); Playwright downloads no browser of its own. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const P = '/v1/projects/acme/locations/global/firewallPolicies';
/** The live policy of the console's tests: SSH and HTTPS from anywhere. */
export const LIVE_RULES = [
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
/** The experiment's new rule, in front of the live ones: SSH denied. */
export const BLOCK_SSH = {
  priority: 900,
  direction: 'INGRESS',
  action: 'deny',
  match: { srcIpRanges: ['0.0.0.0/0'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] },
};

/** One request the page made. */
export interface PageRequest {
  url: string;
  method: string;
  path: string;
  requestId?: string;
}

/** The system and the browser of a console spec: filled in by the hooks `consoleWorld` registers. */
export interface ConsoleWorld {
  system: RunningSystem;
  ns: NatsNamespace;
  nc: NatsConnection;
  browser: Browser;
  page: Page;
  /** Whatever the browser reports as an error: CSP violations, failed scripts, uncaught exceptions. */
  browserErrors: string[];
  requests: PageRequest[];
  /** Answers of 400 and above the browser got: `status method path`. */
  failedResponses: string[];
  api: (method: string, path: string, body?: unknown) => ReturnType<ReturnType<typeof gatewayApi>>;
  shoot: (name: string) => Promise<unknown>;
  expectAccessible: (what: string) => Promise<void>;
  publish: (events: TrafficEvent[], policy?: string) => Promise<void>;
}

/**
 * The built system started as `npm start` does, a NATS connection, and Chromium with one page
 * (1280 wide, `height` high) that records errors, requests and failed answers; with `token`, the
 * page starts signed in with the development token. Screenshots go to `artefacts`.
 */
export function consoleWorld(options: {
  artefacts: string;
  height: number;
  token?: boolean;
  /** More of the services' environment (API keys of several principals, say). */
  extraEnv?: Record<string, string>;
  /** The admin token of the page and of `api`, where configured keys leave no development one. */
  adminToken?: string;
}): ConsoleWorld {
  let database: string | undefined;
  const world = {
    browserErrors: [] as string[],
    requests: [] as PageRequest[],
    failedResponses: [] as string[],
    api: (method, path, body) =>
      gatewayApi(world.system, options.adminToken ?? world.system.devToken)(method, path, body),
    shoot: (name) =>
      world.page.screenshot({ path: join(options.artefacts, `${name}.png`), fullPage: true }),
    async expectAccessible(what) {
      const { violations } = await new AxeBuilder({ page: world.page })
        .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
        .analyze();
      const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect({
        what,
        violations: serious.map(
          (v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`,
        ),
      }).toEqual({ what, violations: [] });
    },
    async publish(events, policy = 'edge') {
      const subject = world.ns.subject(trafficSubject('acme', 'global', policy));
      const js = world.nc.jetstream();
      await Promise.all(events.map((e) => js.publish(subject, JSON.stringify(e), { msgID: e.id })));
    },
  } as Partial<ConsoleWorld> as ConsoleWorld;

  beforeAll(async () => {
    mkdirSync(options.artefacts, { recursive: true });
    const isolated = await isolatedSettings();
    database = isolated.database;
    world.ns = new NatsNamespace(isolated.namespace);
    world.system = await launch({
      settings: isolated.settings,
      distRoot: DIST,
      extraEnv: {
        NATS_NAMESPACE: isolated.namespace,
        LOG_LEVEL: 'silent',
        ...options.extraEnv,
      },
      log: () => undefined,
    });
    world.nc = await connect({ servers: TEST_NATS_URL });
    // Root (CI) cannot use chromium's sandbox.
    world.browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-dev-shm-usage'],
    });
    const context = await world.browser.newContext({
      viewport: { width: 1280, height: options.height },
    });
    if (options.token)
      await context.addInitScript(
        `sessionStorage.setItem('policy-rollout.token', ${JSON.stringify(
          options.adminToken ?? world.system.devToken,
        )})`,
      );
    const page = (world.page = await context.newPage());
    // A wait that fails, fails well within the test's own timeout, saying what it waited for.
    page.setDefaultTimeout(10_000);
    page.on(
      'console',
      (message) => message.type() === 'error' && world.browserErrors.push(message.text()),
    );
    page.on('pageerror', (error) => world.browserErrors.push(error.message));
    page.on('request', (request) => {
      const url = new URL(request.url());
      world.requests.push({
        url: request.url(),
        method: request.method(),
        path: url.pathname,
        requestId: request.headers()['x-request-id'],
      });
    });
    page.on('response', (response) => {
      if (response.status() >= 400)
        world.failedResponses.push(
          `${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`,
        );
    });
  }, 120_000);

  afterAll(async () => {
    await world.browser?.close();
    await world.nc?.close();
    await world.system?.stop();
    if (database) await removeRun(database);
  }, 60_000);

  return world;
}

/**
 * What a phone user would find cut off or have to scroll sideways for: the page wider than the
 * screen, and each element of `selector` that sticks out of the screen or out of its own box
 * (a word too long for its card). Empty when everything fits. Run in the page as a string: these
 * files are compiled without the DOM's types.
 */
export function sidewaysOverflow(page: Page, selector: string): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const root = document.documentElement;
    const width = root.clientWidth;
    const found = root.scrollWidth > width ? ['the page: ' + root.scrollWidth + ' px wide'] : [];
    document.querySelectorAll(${JSON.stringify(selector)}).forEach((element) => {
      const box = element.getBoundingClientRect();
      const name = element.tagName.toLowerCase() + '.' + element.className + ' "' +
        element.textContent.trim().slice(0, 40) + '"';
      if (box.left < -0.5 || box.right > width + 0.5)
        found.push(name + ': ' + Math.round(box.left) + '–' + Math.round(box.right) + ' px');
      if (element.scrollWidth > element.clientWidth + 1)
        found.push(name + ': content ' + element.scrollWidth + ' px in ' + element.clientWidth);
    });
    return found;
  })()`);
}

/** Two boxes of the page overlap (each named by a selector of one element). */
export function overlapping(page: Page, first: string, second: string): Promise<boolean> {
  return page.evaluate<boolean>(`(() => {
    const [a, b] = [${JSON.stringify(first)}, ${JSON.stringify(second)}].map((selector) =>
      document.querySelector(selector).getBoundingClientRect());
    return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  })()`);
}
