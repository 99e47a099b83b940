import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { RunningSystem, launch } from '@rollout/launcher';
import { TEST_NATS_URL } from '@rollout/testing/kit';
import { DIST, gatewayApi, isolatedSettings, removeRun } from './support';

/**
 * `npm run demo` against the built system started as `npm start` starts it: it creates the demo
 * project's policy and experiment, streams the bundled flow log through the importer, and the
 * preview report fills with what the experiment would change.
 */
describe('npm run demo', () => {
  let system: RunningSystem;
  let database: string;
  let namespace: string;
  const EXPERIMENT =
    '/v1/projects/demo/locations/global/firewallPolicies/web-edge/experiments/tighten-ssh-and-db';

  beforeAll(async () => {
    const isolated = await isolatedSettings();
    ({ database, namespace } = isolated);
    system = await launch({
      settings: isolated.settings,
      distRoot: DIST,
      extraEnv: { NATS_NAMESPACE: namespace, LOG_LEVEL: 'silent' },
      log: () => undefined,
    });
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
    if (database) await removeRun(database);
  }, 60_000);

  const demo = (
    seconds: number,
  ): Promise<{ code: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve, reject) => {
      const child = spawn('npm', ['run', '--silent', 'demo'], {
        cwd: join(DIST, '..'),
        env: {
          ...process.env,
          GATEWAY_URL: system.urls.gateway,
          TOKEN: system.devToken,
          NATS_URL: TEST_NATS_URL,
          NATS_NAMESPACE: namespace,
          DEMO_SECONDS: String(seconds),
          DEMO_RATE: '100',
        },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });

  it('creates a policy and a tightening experiment, streams traffic through the importer, and the report fills', async () => {
    const run = await demo(6);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout).toContain(
      'Created the live policy projects/demo/locations/global/firewallPolicies/web-edge',
    );
    expect(run.stdout).toContain('started its preview');
    expect(run.stdout).toMatch(/The importer published [\d,]+ events\./);
    expect(run.stdout).toContain('Where to look:');
    const published = Number(
      /The importer published ([\d,]+) events/.exec(run.stdout)![1].replace(/,/g, ''),
    );
    expect(published).toBeGreaterThan(0);

    const { status, body } = await gatewayApi(system)('GET', `${EXPERIMENT}/previewReport`);
    expect(status).toBe(200);
    const [latest] = body.configurations;
    expect(latest.evaluated).toBe(published);
    // SSH from the internet (live rule 300) and Postgres from the batch subnet (400) would be denied; nothing opens up.
    expect(latest.allowToDeny).toBeGreaterThan(0);
    expect(latest.denyToAllow).toBe(0);
    const denied = latest.ruleTransitions
      .filter((cell: { experiment: { implied: boolean } }) => cell.experiment.implied)
      .map((cell: { live: { rulePriority: number } }) => cell.live.rulePriority);
    expect(denied).toEqual(expect.arrayContaining([300, 400]));
    expect(run.stdout).toContain(
      `${latest.evaluated.toLocaleString('en-US')} connections evaluated, ${latest.changed.toLocaleString('en-US')} would change`,
    );
  }, 300_000);

  it('replaces the demo policy when run again', async () => {
    const run = await demo(2);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout).toContain(
      'Replaced the live policy web-edge of project demo from an earlier demo',
    );
    const { body } = await gatewayApi(system)('GET', `${EXPERIMENT}/previewReport`);
    expect(body.configurations[0].evaluated).toBeGreaterThan(0);
  }, 300_000);
});
