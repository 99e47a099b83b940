import { provisionBus, removeBus } from '@rollout/provision';
import { DEFAULT_BUS_LIMITS } from '@rollout/contracts';
import {
  REPO_ROOT,
  TEST_NATS_URL,
  TEST_POSTGRES_URL,
  removeTestResources,
  uniqueName,
} from '@rollout/testing/kit';
import { NatsConnection, connect } from 'nats';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import { provisionDatabaseRoles } from './postgres';
import { withDatabase } from './settings';

/** `npm run teardown` as a user runs it, on the real NATS and Postgres. */
function runTeardown(args: string[]) {
  const result = spawnSync(
    process.execPath,
    [
      '-r',
      '@swc-node/register',
      join(REPO_ROOT, 'tools', 'launcher', 'src', 'teardown-main.ts'),
      ...args,
    ],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, NATS_URL: TEST_NATS_URL, DATABASE_URL: TEST_POSTGRES_URL },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('npm run teardown: one instance removed, by name only', () => {
  const removed = uniqueName();
  const kept = uniqueName();
  const database = uniqueName('it_td_');
  const limits = {
    ...DEFAULT_BUS_LIMITS,
    trafficMaxBytes: 16 * 1024 ** 2,
    previewLogsMaxBytes: 16 * 1024 ** 2,
  };
  let nc: NatsConnection;
  const server = () => new Client({ connectionString: TEST_POSTGRES_URL });

  const streamsOf = async (namespace: string) => {
    const names: string[] = [];
    for await (const name of (await nc.jetstreamManager()).streams.names())
      if (name.startsWith(`${namespace}_`) || name.startsWith(`KV_${namespace}_`)) names.push(name);
    return names.sort();
  };
  const databaseLeft = async () => {
    const client = server();
    await client.connect();
    try {
      const { rows: databases } = await client.query(
        'SELECT 1 FROM pg_database WHERE datname = $1',
        [database],
      );
      const { rows: roles } = await client.query(
        'SELECT rolname FROM pg_roles WHERE rolname LIKE $1',
        [`${database}\\_%`],
      );
      return { database: databases.length === 1, roles: roles.map((r) => r.rolname as string) };
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    nc = await connect({ servers: TEST_NATS_URL });
    await provisionBus(nc, { namespace: removed, replicas: 1, limits });
    await provisionBus(nc, { namespace: kept, replicas: 1, limits });
    const client = server();
    await client.connect();
    await client.query(`CREATE DATABASE "${database}"`);
    await client.end();
    await provisionDatabaseRoles(withDatabase(TEST_POSTGRES_URL, database), () => undefined);
  }, 60_000);

  afterAll(async () => {
    await removeBus(nc, removed);
    await nc.close();
    await removeTestResources({ namespace: kept });
    const client = server();
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    for (const schema of ['experiment', 'preview', 'enforcement', 'inspection'])
      await client.query(`DROP ROLE IF EXISTS "${database}_${schema}"`);
    await client.end();
  });

  it('refuses, in one line, when the instance is not named, and removes nothing', async () => {
    const before = await streamsOf(removed);
    for (const args of [[], ['--namespace', removed], ['--database', database]]) {
      const { status, stderr } = runTeardown(args);
      expect(status).toBe(1);
      expect(stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/^teardown: name the instance to remove: .*nothing was removed$/),
      ]);
    }
    expect(await streamsOf(removed)).toEqual(before);
    expect(await databaseLeft()).toMatchObject({ database: true });
  });

  it("removes the named instance's streams, buckets, database and roles, and nothing of another", async () => {
    const other = await streamsOf(kept);
    expect(await streamsOf(removed)).toHaveLength(other.length);
    expect((await databaseLeft()).roles).toHaveLength(4);

    const { status, stdout, stderr } = runTeardown([
      '--namespace',
      removed,
      '--database',
      database,
    ]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(stdout).toContain(`namespace "${removed}": removed ${removed}_TRAFFIC`);
    expect(stdout).toContain(`KV_${removed}_EXPERIMENT_STATE`);
    expect(stdout).toContain(`${database}: the database and its services' roles are gone`);

    expect(await streamsOf(removed)).toEqual([]);
    expect(await streamsOf(kept)).toEqual(other);
    expect(await databaseLeft()).toEqual({ database: false, roles: [] });
  });
});
