/**
 * What `rollout` costs a pipeline (docs/rollout-cli.md): the built system started as `npm start`
 * starts it, a live policy of BENCH_RULES (1,000) rules, BENCH_EVENTS traffic.v1 events retained
 * in TRAFFIC (published first, and drained by the live evaluator before anything is timed), then
 * the wall time of `rollout export`, `rollout drift` and `rollout plan` (a tenth of the rules'
 * actions flipped) as processes, as a pipeline runs them. Floors measured in the same run: the
 * process starting and printing its help (node and the CLI's modules), and one GET of the policy
 * over HTTP. For plan, the backtest's own time (its operation's createTime to endTime) and its
 * share of the plan.
 *   npm run build && npm run bench -- test/bench/rollout.bench.ts   (BENCH_EVENTS, BENCH_RULES)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FirewallRule, TRAFFIC_STREAM, trafficSubject } from '@rollout/contracts';
import { launch } from '@rollout/launcher';
import { NatsNamespace } from '@rollout/platform/nats';
import { TEST_NATS_URL, eventually } from '@rollout/testing/kit';
import { connect } from 'nats';
import { parse, stringify } from 'yaml';
import { DIST, isolatedSettings, removeRun } from '../e2e/support';
import { out } from './support';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const RULES = Number(process.env.BENCH_RULES ?? 1000);
const FLOWS = 20_000;
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function rules(): FirewallRule[] {
  return Array.from({ length: RULES }, (_, i) => ({
    priority: 100 + i,
    direction: 'INGRESS',
    action: i % 3 === 0 ? 'deny' : 'allow',
    match: {
      srcIpRanges: [`10.${i % 256}.${Math.floor(i / 256)}.0/24`],
      layer4Configs: [{ ipProtocol: 'tcp', ports: [String(1000 + (i % 50))] }],
    },
  }));
}

async function main() {
  const isolated = await isolatedSettings();
  const system = await launch({
    settings: isolated.settings,
    distRoot: DIST,
    extraEnv: { NATS_NAMESPACE: isolated.namespace, LOG_LEVEL: 'silent' },
    log: () => undefined,
  });
  const dir = mkdtempSync(join(tmpdir(), 'rollout-bench-'));
  const nc = await connect({ servers: TEST_NATS_URL });
  const policy = 'projects/bench/locations/global/firewallPolicies/edge';
  const env = {
    ...process.env,
    ROLLOUT_GATEWAY_URL: system.urls.gateway,
    ROLLOUT_TOKEN: system.devToken,
  };
  const rollout = (args: string[]) =>
    new Promise<{ ms: number; code: number | null; stdout: string }>((resolve, reject) => {
      const started = performance.now();
      const child = spawn(process.execPath, [join(DIST, 'tools/rollout/src/main.js'), ...args], {
        cwd: dir,
        env,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ ms: performance.now() - started, code, stdout }));
    });
  try {
    const created = await fetch(
      `${system.urls.gateway}/v1/projects/bench/locations/global/firewallPolicies?firewallPolicyId=edge`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${system.devToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ displayName: 'edge', rules: rules() }),
      },
    );
    if (!created.ok) throw new Error(`policy not created: ${await created.text()}`);

    const ns = new NatsNamespace(isolated.namespace);
    const subject = ns.subject(trafficSubject('bench', 'global', 'edge'));
    const js = nc.jetstream();
    const publishStarted = performance.now();
    for (let i = 0; i < EVENTS; i += 2000) {
      const window = [];
      for (let j = i; j < Math.min(EVENTS, i + 2000); j++) {
        const flow = j % FLOWS;
        const rule = flow % RULES;
        const event = {
          id: `bench-${j}`,
          time: new Date(Date.now() - (EVENTS - j)).toISOString(),
          direction: 'INGRESS',
          srcIp: `10.${rule % 256}.${Math.floor(rule / 256)}.${flow % 250}`,
          destIp: '192.0.2.1',
          protocol: 'tcp',
          srcPort: 1024 + (j % 60000),
          destPort: 1000 + (rule % 50),
        };
        window.push(js.publish(subject, JSON.stringify(event), { msgID: event.id }));
      }
      await Promise.all(window);
    }
    const publishMs = performance.now() - publishStarted;
    out(
      `published ${int(EVENTS)} traffic.v1 events in ${seconds(publishMs)} (${int(EVENTS / (publishMs / 1000))}/s)`,
    );
    const jsm = await nc.jetstreamManager();
    await eventually(
      async () => {
        const info = await jsm.consumers.info(ns.stream(TRAFFIC_STREAM), 'evaluator');
        return info.num_pending === 0 && info.num_ack_pending === 0 ? true : undefined;
      },
      { timeoutMs: 3_600_000, intervalMs: 1000, what: 'the live evaluator drained TRAFFIC' },
    );
    out(`the live evaluator drained TRAFFIC after ${seconds(performance.now() - publishStarted)}`);

    const startup = await rollout(['--help']);
    const getStarted = performance.now();
    await fetch(`${system.urls.gateway}/v1/${policy}`, {
      headers: { authorization: `Bearer ${system.devToken}` },
    }).then((r) => r.text());
    const getMs = performance.now() - getStarted;

    const exported = await rollout(['export', policy, '-o', 'edge.yaml']);
    const drift = await rollout(['drift', 'edge.yaml']);
    const file = parse(readFileSync(join(dir, 'edge.yaml'), 'utf8')) as { rules: FirewallRule[] };
    file.rules.forEach((rule, i) => {
      if (i % 10 === 0) rule.action = rule.action === 'allow' ? 'deny' : 'allow';
    });
    writeFileSync(join(dir, 'edge.yaml'), stringify(file));
    const plan = await rollout(['plan', 'edge.yaml', '--json', '--out', 'edge.plan.json']);
    const model = JSON.parse(plan.stdout) as {
      impact: { operation: string; evaluated: number; changed: number }[];
    };
    const operation = (await fetch(`${system.urls.gateway}/v1/${model.impact[0].operation}`, {
      headers: { authorization: `Bearer ${system.devToken}` },
    }).then((r) => r.json())) as {
      metadata: { createTime: string; endTime: string; eventsReplayed: number };
    };
    const backtestMs =
      Date.parse(operation.metadata.endTime) - Date.parse(operation.metadata.createTime);

    out(
      `floor: the CLI starting and printing its help: ${seconds(startup.ms)}; one GET of the ${int(RULES)}-rule policy: ${seconds(getMs)}`,
    );
    out(`rollout export (${int(RULES)} rules, exit ${exported.code}): ${seconds(exported.ms)}`);
    out(`rollout drift (no drift, exit ${drift.code}): ${seconds(drift.ms)}`);
    out(
      `rollout plan (${int(RULES / 10)} rules flipped, exit ${plan.code}): ${seconds(plan.ms)}; ` +
        `its backtest ${seconds(backtestMs)} over ${int(operation.metadata.eventsReplayed)} events ` +
        `(${int(operation.metadata.eventsReplayed / (backtestMs / 1000))}/s) = ${((backtestMs / plan.ms) * 100).toFixed(0)}% of the plan; ` +
        `${int(model.impact[0].changed)} of ${int(model.impact[0].evaluated)} events change verdict`,
    );
  } finally {
    await nc.close();
    await system.stop();
    await removeRun(isolated.database);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
