/**
 * The console's time to first report render: from asking for the report page (signed in, cold,
 * the built console served by the gateway) to its first screen and to its first chart; median of
 * 7 runs (BENCH_CONSOLE_RUNS) over a 5,000-event preview (BENCH_CONSOLE_EVENTS, from as many
 * distinct connections as BENCH_CONSOLE_FLOWS, 50 by default; a third of them change verdict) in
 * Debian's chromium. Saves the first screen as tmp/bench/console-report.png (the picture in
 * docs/console.md).
 *
 *   npm run build && npm run bench -- test/bench/console.bench.ts
 */
import { trafficSubject } from '@rollout/contracts';
import { NatsNamespace } from '@rollout/platform/nats';
import { TEST_NATS_URL, eventually } from '@rollout/testing/kit';
import { connect } from 'nats';
import { launch } from '@rollout/launcher';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { DIST, gatewayApi, isolatedSettings, removeRun } from '../e2e/support';

/** What the page's function reads (this file is compiled without the DOM's types). */
type Queryable = { document: { querySelector(selector: string): unknown } };

const RUNS = Number(process.env.BENCH_CONSOLE_RUNS ?? 7);
const EVENTS = Number(process.env.BENCH_CONSOLE_EVENTS ?? 5_000);
const FLOWS = Number(process.env.BENCH_CONSOLE_FLOWS ?? 50);
const P = '/v1/projects/acme/locations/global/firewallPolicies';
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  const assets = join(DIST, 'apps', 'console', 'assets');
  for (const file of readdirSync(assets)) {
    const bytes = readFileSync(join(assets, file));
    console.log(
      `${file}: ${(bytes.length / 1024).toFixed(0)} KiB, ${(gzipSync(bytes).length / 1024).toFixed(0)} KiB gzipped`,
    );
  }
  const isolated = await isolatedSettings();
  const system = await launch({
    settings: isolated.settings,
    distRoot: DIST,
    extraEnv: { NATS_NAMESPACE: isolated.namespace, LOG_LEVEL: 'silent' },
    log: () => undefined,
  });
  const nc = await connect({ servers: TEST_NATS_URL });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox'],
  });
  try {
    const api = gatewayApi(system);
    const rule = (priority: number, action: string, ports: string[]) => ({
      priority,
      direction: 'INGRESS',
      action,
      match: { srcIpRanges: ['0.0.0.0/0'], layer4Configs: [{ ipProtocol: 'tcp', ports }] },
    });
    await api('POST', `${P}?firewallPolicyId=edge`, {
      rules: [rule(1000, 'allow', ['22', '443'])],
    });
    await api('POST', `${P}/edge/experiments?experimentId=block-ssh`, {
      firewallPolicy: { rules: [rule(900, 'deny', ['22']), rule(1000, 'allow', ['22', '443'])] },
    });
    await api('POST', `${P}/edge/experiments/block-ssh:startPreview`);
    const js = nc.jetstream();
    const subject = new NatsNamespace(isolated.namespace).subject(
      trafficSubject('acme', 'global', 'edge'),
    );
    for (let n = 0; n < EVENTS; n += 500) {
      await Promise.all(
        Array.from({ length: 500 }, (_, i) => {
          const k = n + i;
          const flow = k % FLOWS;
          const event = {
            id: `bench-${k}`,
            time: new Date(Date.now() - k * 1_000).toISOString(),
            direction: 'INGRESS',
            srcIp: `198.${51 + (flow >> 16)}.${(flow >> 8) & 255}.${flow & 255}`,
            destIp: '10.0.0.5',
            protocol: 'tcp',
            srcPort: 40_000 + (k % 20_000),
            destPort: flow % 3 ? 443 : 22,
          };
          return js.publish(subject, JSON.stringify(event), { msgID: event.id });
        }),
      );
    }
    await eventually(
      async () =>
        (await api('GET', `${P}/edge/experiments/block-ssh/previewReport`)).body.configurations?.[0]
          ?.evaluated === EVENTS
          ? true
          : undefined,
      { timeoutMs: 600_000 },
    );

    const firstScreens: number[] = [];
    const charts: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await context.addInitScript(
        `sessionStorage.setItem('policy-rollout.token', ${JSON.stringify(system.devToken)})`,
      );
      const page = await context.newPage();
      const started = Date.now();
      await page.goto(
        `${system.urls.gateway}/console/#/projects/acme/locations/global/firewallPolicies/edge/experiments/block-ssh/report`,
      );
      await page.locator('[data-metric="changedShare"]').waitFor();
      await page.waitForFunction(
        (selector) => !(globalThis as unknown as Queryable).document.querySelector(selector),
        '#section-what-changes [aria-busy="true"]',
      );
      firstScreens.push(Date.now() - started);
      await page.locator('canvas').first().waitFor();
      charts.push(Date.now() - started);
      if (run === RUNS - 1) {
        // Let the charts' entry animation finish before the picture.
        await page.waitForTimeout(1_500);
        mkdirSync(join(DIST, '..', 'tmp', 'bench'), { recursive: true });
        await page.screenshot({
          path: join(DIST, '..', 'tmp', 'bench', 'console-report.png'),
        });
      }
      await context.close();
    }
    console.log(
      `first screen shown:   median ${median(firstScreens)} ms (${firstScreens.join(', ')})`,
    );
    console.log(`first chart drawn:    median ${median(charts)} ms (${charts.join(', ')})`);
  } finally {
    await browser.close();
    await nc.close();
    await system.stop();
    await removeRun(isolated.database);
  }
}

void main();
