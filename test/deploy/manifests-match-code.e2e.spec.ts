import {
  TEST_NATS_URL,
  TEST_POSTGRES_URL,
  freePort,
  removeTestResources,
  uniqueName,
} from '@rollout/testing/kit';
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
import {
  K8sObject,
  ROOT,
  mountedFiles,
  named,
  ofKind,
  plainEnv,
  render,
  secretEnv,
} from './render';

/**
 * The manifests match the code: the postgres-roles Job of the dev overlay provisions this run's
 * database, then each Deployment is started here with exactly the env its manifest gives it
 * (ConfigMap + Secrets; only hosts rewritten to the local NATS and Postgres, and role names
 * prefixed with this run's database, since roles belong to the whole server), the files its
 * volumes mount (written under a temporary directory, and the env paths that name them
 * rewritten to match), the image's entry point and working directory, and its container port;
 * then every probe path the manifest declares must answer 200 on that port.
 */
const rendered = render('dev');
const database = uniqueName('deploy_');
const namespace = uniqueName('deploy');
const roleOfThisRun = (role: string) => `${database}_${role}`;

/** This run's database on the local Postgres, as `user`. */
function localDatabaseUrl(user: string): string {
  const local = new URL(TEST_POSTGRES_URL);
  local.pathname = `/${database}`;
  local.username = user;
  return local.toString();
}

/** Runs the postgres-roles Job's container as its manifest says, on this run's database. */
function provision(): { status: number | null; output: string; roles: string[] } {
  const job = named(rendered, 'Job', 'postgres-roles')!;
  const [container] = job.spec.template.spec.containers;
  const env: Record<string, string> = { ...plainEnv(rendered, container) };
  for (const [name, value] of Object.entries(secretEnv(rendered, container)))
    if (value !== undefined) env[name] = value;
  env.DATABASE_URL = localDatabaseUrl(new URL(TEST_POSTGRES_URL).username);
  delete env.DATABASE_PASSWORD; // the local server trusts its superuser
  const roles = env.DATABASE_ROLES.split(',').map((pair) => pair.split(':')[0]);
  env.DATABASE_ROLES = env.DATABASE_ROLES.split(',')
    .map((pair) => `${roleOfThisRun(pair.split(':')[0])}:${pair.split(':')[1]}`)
    .join(',');
  for (const role of roles) {
    const variable = `DATABASE_ROLE_PASSWORD_${role.toUpperCase()}`;
    env[`DATABASE_ROLE_PASSWORD_${roleOfThisRun(role).toUpperCase()}`] = env[variable];
    delete env[variable];
  }
  // deploy/Dockerfile: the image's WORKDIR is /app, holding dist/ as the repository does.
  const run = spawnSync(
    container.command[0] === 'node' ? process.execPath : container.command[0],
    container.command.slice(1),
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ...env },
      encoding: 'utf8',
    },
  );
  return {
    status: run.status,
    output: `${run.stdout}${run.stderr}`,
    roles: roles.map(roleOfThisRun),
  };
}
let provisionedRoles: string[] = [];

function entryPoint(image: string): string {
  // deploy/Dockerfile: main.js -> dist/apps/${APP}/src/main.js, image policy-rollout/${APP}.
  const app = /^policy-rollout\/([a-z-]+)(:|@|$)/.exec(image)?.[1];
  if (!app) throw new Error(`unexpected image ${image}`);
  return join(ROOT, 'dist', 'apps', app, 'src', 'main.js');
}

async function answers(
  url: string,
  deadline: number,
  child: ChildProcess,
): Promise<number | string> {
  let last: number | string = 'no answer';
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      last = response.status;
      if (response.status === 200) return 200;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return child.exitCode !== null ? `process exited with ${child.exitCode}` : last;
}

/** Starts the deployment's container locally; returns what does not match, if anything. */
async function problemsOf(deployment: K8sObject, objects = rendered): Promise<string[]> {
  const [container] = deployment.spec.template.spec.containers;
  const env: Record<string, string> = { ...plainEnv(objects, container) };
  for (const [name, value] of Object.entries(secretEnv(objects, container))) {
    if (value === undefined)
      return [`${name} refers to a Secret key that the overlay does not provide`];
    env[name] = value;
  }
  // Only where things are changes: the local NATS (no auth) and Postgres, this run's namespace.
  env.NATS_URL = TEST_NATS_URL;
  delete env.NATS_USER;
  delete env.NATS_PASSWORD;
  env.NATS_NAMESPACE = namespace;
  if (env.DATABASE_URL)
    env.DATABASE_URL = localDatabaseUrl(roleOfThisRun(new URL(env.DATABASE_URL).username));
  // The mounted ConfigMap and Secret files, at the same paths under a temporary root.
  const files = Object.entries(mountedFiles(objects, deployment.spec.template.spec, container));
  const missing = files.filter(([, content]) => content === null).map(([path]) => path);
  if (missing.length)
    return missing.map(
      (path) => `${path} is mounted from a Secret that the overlay does not provide`,
    );
  const root = mkdtempSync(join(tmpdir(), 'deploy-mounts-'));
  for (const [path, content] of files) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content!);
    for (const [name, value] of Object.entries(env))
      if (value === path) env[name] = join(root, path);
  }
  const http = container.ports.find((p: { name: string }) => p.name === 'http');
  const localPort = await freePort();
  // The container port maps to a free local port; PORT follows it only if it is the same port.
  if (env.PORT === String(http.containerPort)) env.PORT = String(localPort);
  // The image's WORKDIR is the repository's root (/app), where relative default paths resolve.
  const child = spawn(process.execPath, [entryPoint(container.image)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env, HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  try {
    const problems: string[] = [];
    const deadline = Date.now() + 30_000;
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
      const get = container[probe]?.httpGet;
      if (!get) {
        problems.push(`${probe} is not an HTTP probe`);
        continue;
      }
      const port = get.port === 'http' || get.port === http.containerPort ? localPort : get.port;
      const status = await answers(`http://127.0.0.1:${port}${get.path}`, deadline, child);
      if (status !== 200)
        problems.push(
          `${probe} ${get.path} on port ${get.port}: ${status} ${stderr.trim()}`.trim(),
        );
    }
    return problems;
  } finally {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    rmSync(root, { recursive: true, force: true });
  }
}

describe('the dev overlay, run against the code', () => {
  beforeAll(async () => {
    const client = new Client({ connectionString: TEST_POSTGRES_URL });
    await client.connect();
    await client.query(`CREATE DATABASE "${database}"`);
    await client.end();
    const provisioned = provision();
    provisionedRoles = provisioned.roles;
    expect([provisioned.status, provisioned.output]).toEqual([
      0,
      expect.stringMatching(/^provisioned /),
    ]);
    // The bus-provision Job too, from its manifest, as in a cluster: the services only check
    // that their streams exist, and are not ready before.
    const [job] = named(rendered, 'Job', 'bus-provision')!.spec.template.spec.containers;
    const env: Record<string, string> = {
      ...plainEnv(rendered, job),
      NATS_URL: TEST_NATS_URL,
      NATS_NAMESPACE: namespace,
    };
    delete env.NATS_USER;
    const run = spawnSync(job.command[0], job.command.slice(1), {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ...env },
      encoding: 'utf8',
    });
    if (run.status !== 0) throw new Error(`the bus-provision Job failed: ${run.stderr}`);
  }, 60_000);

  afterAll(async () => {
    const client = new Client({ connectionString: TEST_POSTGRES_URL });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    for (const role of provisionedRoles) await client.query(`DROP ROLE IF EXISTS "${role}"`);
    await client.end();
    // JetStream reserves each stream's byte limit on disk: leave none behind.
    await removeTestResources({ namespace });
  });

  // The experiment-service first: the evaluator is ready only once the experiment-service has
  // filled the EXPERIMENT_STATE bucket (they share this run's namespace), as in a cluster.
  const deployments = ofKind(rendered, 'Deployment').sort(
    (a, b) =>
      Number(b.metadata.name === 'experiment-service') -
      Number(a.metadata.name === 'experiment-service'),
  );
  it.each(deployments.map((d) => [d.metadata.name, d] as const))(
    '%s starts from its manifest and answers every probe it declares',
    async (_, deployment) => {
      expect(await problemsOf(deployment)).toEqual([]);
    },
    60_000,
  );

  it('has each service that owns a schema migrate it as its own role, which the Job made its owner', async () => {
    const client = new Client({
      connectionString: localDatabaseUrl(new URL(TEST_POSTGRES_URL).username),
    });
    await client.connect();
    const found: string[][] = [];
    const expected: string[][] = [];
    try {
      for (const deployment of deployments) {
        const env = plainEnv(rendered, deployment.spec.template.spec.containers[0]);
        if (!env.DATABASE_URL) continue;
        const role = roleOfThisRun(new URL(env.DATABASE_URL).username);
        // Its migrations ran, as its role: the schema and every table in it are the role's.
        const { rows } = await client.query(
          `SELECT pg_get_userbyid(n.nspowner) AS owner,
                  array_agg(DISTINCT t.tableowner::text) AS tables
             FROM pg_namespace n JOIN pg_tables t ON t.schemaname = n.nspname
            WHERE n.nspname = $1 GROUP BY n.nspowner`,
          [env.DATABASE_SCHEMA],
        );
        found.push([env.DATABASE_SCHEMA, rows[0]?.owner, ...(rows[0]?.tables ?? [])]);
        expected.push([env.DATABASE_SCHEMA, role, role]);
      }
    } finally {
      await client.end();
    }
    expect(found).toEqual(expected);
    expect(found).toHaveLength(5);
  });

  it('catches a manifest whose container port is not the port the service listens on', async () => {
    const gateway = structuredClone(named(rendered, 'Deployment', 'gateway')!);
    gateway.spec.template.spec.containers[0].ports[0].containerPort = 9999;
    const problems = await problemsOf(gateway);
    expect(problems.join('\n')).toMatch(/startupProbe \/healthz on port http/);
  }, 60_000);

  it('catches a manifest that lacks a variable the code needs in production', async () => {
    const gateway = structuredClone(named(rendered, 'Deployment', 'gateway')!);
    const container = gateway.spec.template.spec.containers[0];
    // The dev overlay runs as development; production is where the variable is required.
    container.env = container.env.filter(
      (e: { name: string }) => e.name !== 'AUTH_API_KEYS' && e.name !== 'NODE_ENV',
    );
    container.env.push({ name: 'NODE_ENV', value: 'production' });
    const problems = await problemsOf(gateway);
    expect(problems.join('\n')).toMatch(/AUTH_API_KEYS must configure credentials/);
  }, 60_000);

  it('reads the built-in inspection rules from the file its manifest mounts', async () => {
    const objects = structuredClone(rendered);
    const deployment = named(objects, 'Deployment', 'inspection-rules-service')!;
    const volume = deployment.spec.template.spec.volumes.find(
      (v: { configMap?: unknown }) => v.configMap,
    );
    named(objects, 'ConfigMap', volume.configMap.name)!.data['builtin-rules.yaml'] =
      'not: a list of rules\n';
    const problems = await problemsOf(deployment, objects);
    expect(problems.join('\n')).toMatch(/INSPECTION_BUILT_IN_RULES: .*must hold a list of rules/);
  }, 60_000);
});
