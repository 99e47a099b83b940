import { TEST_POSTGRES_URL, eventually, freePorts, uniqueName } from '@rollout/testing/kit';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { EXPERIMENT_SUBJECTS } from '@rollout/contracts';
import {
  ActorAssertionSigner,
  ActorAssertionVerifier,
  parseBusKey,
} from '@rollout/platform/bus-security';
import { LaunchOptions, RunningSystem, launch } from './launcher';
import { consoleOutput } from './service-logs';
import { LaunchError, isAlive } from './processes';
import { removeDatabase, serviceRoleName } from './postgres';
import { SERVICES, ServiceName, readSettings, withDatabase } from './settings';

/**
 * A stand-in for a built service (dist/apps/<name>/src/main.js): serves /readyz (200 once
 * "ready") and /env, records its pid, and behaves as FAKE_ROLES says:
 * crash (exits 3 at once), unready (/readyz 503 forever), slow (ready after 1 s),
 * stubborn (ignores SIGTERM), chatty (writes pino-style JSON lines at info and warn, and a plain
 * line, as a service does). Like the real services, it stops when the IPC channel closes.
 */
const FAKE_SERVICE = `
const http = require('node:http');
const fs = require('node:fs');
const name = process.argv[1].split('/apps/')[1].split('/')[0];
const role = JSON.parse(process.env.FAKE_ROLES || '{}')[name] || 'ok';
fs.writeFileSync(process.env.FAKE_PID_DIR + '/' + name, String(process.pid));
if (role === 'crash') { process.stderr.write(name + ': failed to start: on purpose\\n'); process.exit(3); }
const readyAt = Date.now() + (role === 'slow' ? 1000 : 100);
if (role === 'chatty') {
  const time = new Date().toISOString();
  process.stdout.write(JSON.stringify({ level: 'info', time, service: name, msg: 'listening' }) + '\\n');
  process.stdout.write(JSON.stringify({ level: 'warn', time, service: name, reqId: 'r-1', msg: 'slow start' }) + '\\n');
  process.stderr.write('a plain line on stderr\\n');
}
const server = http.createServer((req, res) => {
  if (req.url === '/readyz') {
    const ready = role !== 'unready' && Date.now() >= readyAt;
    res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' });
    return res.end(ready ? '{"status":"ok"}' : '{"status":"starting"}');
  }
  if (req.url === '/env') {
    const { HOST, PORT, NATS_URL, DATABASE_URL, DATABASE_PASSWORD, DATABASE_SCHEMA, AUTH_DEV_TOKEN, FAKE_EXTRA, BUS_SIGNING_KEY, BUS_VERIFY_KEYS, NATS_USER } = process.env;
    return res.end(JSON.stringify({ HOST, PORT, NATS_URL, DATABASE_URL, DATABASE_PASSWORD, DATABASE_SCHEMA, AUTH_DEV_TOKEN, FAKE_EXTRA, BUS_SIGNING_KEY, BUS_VERIFY_KEYS, NATS_USER }));
  }
  res.writeHead(404);
  res.end();
});
server.listen(Number(process.env.PORT), process.env.HOST);
process.on('SIGTERM', () => { if (role !== 'stubborn') process.exit(0); });
process.on('disconnect', () => process.exit(0));
`;

function processesWithEnv(entry: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(entry);
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

/** The launcher with fake services: its own processes, readiness, failures and stops (real NATS and Postgres). */
describe('launch', () => {
  const tempDirs: string[] = [];
  const databases: string[] = [];
  let distRoot: string;

  beforeAll(() => {
    distRoot = mkdtempSync(join(tmpdir(), 'launcher-it-dist-'));
    tempDirs.push(distRoot);
    for (const service of SERVICES) {
      mkdirSync(join(distRoot, 'apps', service.name, 'src'), { recursive: true });
      writeFileSync(join(distRoot, 'apps', service.name, 'src', 'main.js'), FAKE_SERVICE);
    }
  });

  afterAll(async () => {
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
    for (const database of databases) await removeDatabase(TEST_POSTGRES_URL, database);
  });

  /** Launch options for one isolated run; the pids of the fake services land in `pidDir`. */
  async function run(
    roles: Partial<Record<ServiceName, string>> = {},
    env: Record<string, string> = {},
  ) {
    const database = uniqueName('it_launcher_');
    databases.push(database);
    const pidDir = mkdtempSync(join(tmpdir(), 'launcher-it-pids-'));
    tempDirs.push(pidDir);
    const settingsEnv: Record<string, string> = {
      DATABASE_URL: withDatabase(TEST_POSTGRES_URL, database),
      LAUNCHER_STOP_TIMEOUT_MS: '5000',
      ...env,
    };
    const ports = await freePorts(SERVICES.length);
    SERVICES.forEach((service, i) => (settingsEnv[service.portVar] ??= String(ports[i])));
    const lines: string[] = [];
    const options: LaunchOptions = {
      settings: readSettings(settingsEnv),
      distRoot,
      extraEnv: {
        FAKE_ROLES: JSON.stringify(roles),
        FAKE_PID_DIR: pidDir,
        FAKE_EXTRA: 'passed through',
      },
      log: (line) => lines.push(line),
    };
    /** The pids the fake services recorded, by name (a service killed while booting records none). */
    const recorded = () =>
      Object.fromEntries(
        readdirSync(pidDir).map((name) => [name, Number(readFileSync(join(pidDir, name), 'utf8'))]),
      );
    /** Every process of this run that still exists, found by its env, whether it recorded its pid or not. */
    const running = () => processesWithEnv(`FAKE_PID_DIR=${pidDir}`);
    return { options, lines, recorded, running, database };
  }

  let system: RunningSystem | undefined;
  afterEach(async () => {
    await system?.stop();
    system = undefined;
  });

  it('starts the five services with their env, resolves once all are ready, and stops them one by one or all', async () => {
    const { options, lines, recorded, running, database } = await run({ evaluator: 'slow' });
    const began = Date.now();
    system = await launch(options);
    expect(Date.now() - began).toBeGreaterThanOrEqual(1_000); // it waited for the slow one's /readyz
    const ports = options.settings!.ports;

    expect(system.urls).toEqual({
      gateway: `http://127.0.0.1:${ports.gateway}`,
      docs: `http://127.0.0.1:${ports.gateway}/docs`,
    });
    for (const service of SERVICES) {
      expect((await fetch(`http://127.0.0.1:${ports[service.name]}/readyz`)).status).toBe(200);
    }
    const evaluatorEnv = (await (
      await fetch(`http://127.0.0.1:${ports.evaluator}/env`)
    ).json()) as Record<string, string>;
    expect(evaluatorEnv).toEqual({
      HOST: '127.0.0.1',
      PORT: String(ports.evaluator),
      NATS_URL: options.settings!.natsUrl,
      DATABASE_URL: expect.stringContaining(`${serviceRoleName(database, 'preview')}@`),
      DATABASE_PASSWORD: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/),
      DATABASE_SCHEMA: 'preview',
      AUTH_DEV_TOKEN: system.devToken,
      FAKE_EXTRA: 'passed through',
      BUS_VERIFY_KEYS: expect.stringMatching(
        /^dev-[a-z0-9]+:[A-Za-z0-9_-]{43},system\.evaluator:[A-Za-z0-9_-]{43}$/,
      ),
      BUS_SIGNING_KEY: expect.stringMatching(/^system\.evaluator:[A-Za-z0-9_-]{43}$/),
    });
    // The gateway signs with the private half of the key the services verify with (a NATS server found running gets no users).
    const gatewayEnv = (await (
      await fetch(`http://127.0.0.1:${ports.gateway}/env`)
    ).json()) as Record<string, string>;
    expect(gatewayEnv.BUS_VERIFY_KEYS).toBeUndefined();
    expect(gatewayEnv.NATS_USER).toBeUndefined();
    // The gateway owns no schema: no database credential at all.
    expect(gatewayEnv.DATABASE_URL).toBeUndefined();
    const signer = new ActorAssertionSigner(parseBusKey(gatewayEnv.BUS_SIGNING_KEY)!, 10_000);
    const verifier = new ActorAssertionVerifier(
      evaluatorEnv.BUS_VERIFY_KEYS.split(',').map((key) => parseBusKey(key)!),
      { maxTtlMs: 60_000, clockSkewMs: 0 },
    );
    const payload = new TextEncoder().encode('{}');
    expect(
      verifier.verify(
        's',
        payload,
        signer.sign('s', payload, { actor: 'a', roles: [], projects: '*' }),
      ).actor,
    ).toBe('a');
    // The evaluator's system key is trusted too, for stopping a preview as itself only.
    const stop = EXPERIMENT_SUBJECTS.stopPreview;
    const evaluatorSigner = new ActorAssertionSigner(
      parseBusKey(evaluatorEnv.BUS_SIGNING_KEY)!,
      10_000,
    );
    expect(
      verifier.verify(
        stop,
        payload,
        evaluatorSigner.sign(stop, payload, {
          actor: 'system:evaluator',
          roles: ['editor'],
          projects: ['acme'],
        }),
      ).actor,
    ).toBe('system:evaluator');
    expect(lines).toContain(
      'actor assertions: the gateway signs, every service verifies, with a key pair generated for this run',
    );
    const client = new Client({ connectionString: options.settings!.databaseUrl });
    await client.connect(); // the launcher created the database
    await client.end();
    expect(lines).toContain(`Postgres: created the database ${database}`);
    // The evaluator's credentials open its own schema and no other service's.
    const evaluatorClient = new Client({
      connectionString: evaluatorEnv.DATABASE_URL,
      password: evaluatorEnv.DATABASE_PASSWORD,
    });
    await evaluatorClient.connect();
    const { rows } = await evaluatorClient.query(
      `SELECT current_user AS who, has_schema_privilege('preview', 'CREATE') AS own,
              has_schema_privilege('experiment', 'USAGE') AS other`,
    );
    await evaluatorClient.end();
    expect(rows).toEqual([{ who: serviceRoleName(database, 'preview'), own: true, other: false }]);

    const pids = recorded();
    expect(system.pids().sort()).toEqual(Object.values(pids).sort());

    await system.stopService('evaluator');
    expect(isAlive(pids.evaluator)).toBe(false);
    expect(system.pids()).toHaveLength(4);

    // A service that dies by itself is reported; the others keep running.
    process.kill(pids['enforcement-service'], 'SIGKILL');
    await eventually(() => lines.find((line) => line.startsWith('enforcement-service exited')), {
      what: 'the report',
    });
    expect(lines).toContain(
      'enforcement-service exited (killed by SIGKILL); the other services keep running',
    );
    expect(lines.some((line) => line.startsWith('evaluator exited'))).toBe(false); // stopped on purpose: no news
    expect(system.pids()).toHaveLength(3);

    await system.stop();
    expect(Object.values(pids).filter(isAlive)).toEqual([]);
    expect(system.pids()).toEqual([]);
    expect(running()).toEqual([]);
    await system.stop(); // a second stop is harmless
  }, 30_000);

  it('shows a person each service as it becomes ready, then only warnings and plain lines; files keep every line', async () => {
    const { options } = await run({ evaluator: 'chatty' });
    const logDir = mkdtempSync(join(tmpdir(), 'launcher-it-logs-'));
    tempDirs.push(logDir);
    const shown: string[] = [];
    const ready: string[] = [];
    const output = consoleOutput(logDir, (line) => shown.push(line));
    system = await launch({
      ...options,
      serviceOutput: output.serviceOutput,
      onServiceReady: (service) => ready.push(service),
    });
    await eventually(() => (shown.length === 2 ? true : undefined), {
      what: 'the warning and the plain line',
    });
    await system.stop();
    await output.close();

    expect(ready.sort()).toEqual(SERVICES.map((s) => s.name).sort());
    expect(shown.map((line) => line.replace(/^\d\d:\d\d:\d\d /, '')).sort()).toEqual([
      'WARN  evaluator: slow start reqId=r-1',
      'evaluator: a plain line on stderr',
    ]);
    const file = readFileSync(join(logDir, 'evaluator.log'), 'utf8');
    expect(file).toContain('"msg":"listening"');
    expect(file).toContain('"msg":"slow start"');
    expect(file).toContain('a plain line on stderr');
  }, 30_000);

  it('fails, naming the service, when one exits before it is ready, and leaves nothing running', async () => {
    const { options, recorded, running } = await run({ 'experiment-service': 'crash' });
    await expect(launch(options)).rejects.toThrow(
      new LaunchError(
        'experiment-service exited (exit code 3) before the system was ready; its log above says why',
      ),
    );
    expect(recorded()['experiment-service']).toBeDefined();
    expect(running()).toEqual([]);
  }, 30_000);

  it('fails after the ready timeout, naming the services that are not ready and why', async () => {
    const { options, recorded, running } = await run(
      { 'inspection-rules-service': 'unready' },
      { LAUNCHER_READY_TIMEOUT_MS: '1500' },
    );
    const attempt = launch(options);
    await expect(attempt).rejects.toThrow(
      'not ready within 1500 ms (LAUNCHER_READY_TIMEOUT_MS): inspection-rules-service (/readyz answered 503: {"status":"starting"})',
    );
    expect(Object.keys(recorded())).toHaveLength(5);
    expect(running()).toEqual([]);
  }, 30_000);

  it('kills a service that ignores SIGTERM once the stop timeout has passed', async () => {
    const { options, lines, running } = await run(
      { gateway: 'stubborn' },
      { LAUNCHER_STOP_TIMEOUT_MS: '500' },
    );
    system = await launch(options);
    expect(running()).toHaveLength(5);
    const began = Date.now();
    await system.stop();
    expect(Date.now() - began).toBeLessThan(3_000);
    expect(running()).toEqual([]);
    expect(lines).toContain(
      'gateway did not stop within 500 ms (LAUNCHER_STOP_TIMEOUT_MS); killed it',
    );
  }, 30_000);

  it('stops what it started when its start is aborted', async () => {
    const { options, recorded, running } = await run({ evaluator: 'unready' });
    const aborter = new AbortController();
    const attempt = launch({ ...options, signal: aborter.signal });
    await eventually(() => (Object.keys(recorded()).length === 5 ? true : undefined), {
      what: 'five services started',
    });
    aborter.abort();
    await expect(attempt).rejects.toThrow(/aborted/i);
    expect(running()).toEqual([]);
  }, 30_000);

  it('refuses a port that is already taken, before starting anything', async () => {
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const port = (squatter.address() as { port: number }).port;
    try {
      const { options, running } = await run({}, { EVALUATOR_PORT: String(port) });
      await expect(launch(options)).rejects.toThrow(
        `port ${port} (EVALUATOR_PORT, for evaluator) is already in use on 127.0.0.1; is the system already running? ` +
          'Stop what uses it, or set EVALUATOR_PORT to a free port',
      );
      expect(running()).toEqual([]);
    } finally {
      squatter.close();
    }
  });

  it('asks for a build when the build output is missing', async () => {
    const { options } = await run();
    const empty = mkdtempSync(join(tmpdir(), 'launcher-it-empty-'));
    tempDirs.push(empty);
    await expect(launch({ ...options, distRoot: empty })).rejects.toThrow(
      `cannot find ${join(empty, 'apps', 'gateway', 'src', 'main.js')}; build first (npm run build)`,
    );
  });
});
