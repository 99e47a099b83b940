import { TEST_POSTGRES_URL, uniqueName } from '@rollout/testing/kit';
import { Client } from 'pg';
import { provisionPostgres } from './provision-postgres';

/** The postgres-roles Job's step on a database of this run: what it prints holds no password. */
describe('the postgres-roles provisioning step', () => {
  const database = uniqueName('it_job_');
  const roles = { experiment: `${database}_experiment`, preview: `${database}_preview` };
  const passwords = { experiment: 'experiment-Pass-1', preview: 'preview-Pass-2' };
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${database}`;
  const env = {
    DATABASE_URL: url.toString(),
    DATABASE_ROLES: `${roles.experiment}:experiment,${roles.preview}:preview`,
    [`DATABASE_ROLE_PASSWORD_${roles.experiment.toUpperCase()}`]: passwords.experiment,
    [`DATABASE_ROLE_PASSWORD_${roles.preview.toUpperCase()}`]: passwords.preview,
  };
  const server = () => new Client({ connectionString: TEST_POSTGRES_URL });

  beforeAll(async () => {
    const client = server();
    await client.connect();
    await client.query(`CREATE DATABASE "${database}"`);
    await client.end();
  });

  afterAll(async () => {
    const client = server();
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    for (const role of Object.values(roles)) await client.query(`DROP ROLE IF EXISTS "${role}"`);
    await client.end();
  });

  it('says what it did to each password, never the password', async () => {
    const lines = [await provisionPostgres(env)];
    expect(lines[0]).toContain(
      `role ${roles.experiment}, owner of schema experiment (password set)`,
    );
    lines.push(await provisionPostgres(env));
    expect(lines[1]).toContain(
      `role ${roles.preview}, owner of schema preview (password kept: it is the provisioned one)`,
    );
    // A password changed by hand (or by the role itself) is reset, and the line says so.
    const client = server();
    await client.connect();
    await client.query(`ALTER ROLE "${roles.preview}" PASSWORD 'changed-Pass-3'`);
    await client.end();
    lines.push(await provisionPostgres(env));
    expect(lines[2]).toContain(
      `role ${roles.preview}, owner of schema preview (password reset: it was not the provisioned one`,
    );
    expect(lines[2]).toContain(
      `role ${roles.experiment}, owner of schema experiment (password kept`,
    );
    for (const line of lines)
      for (const secret of [...Object.values(passwords), 'changed-Pass-3'])
        expect(line).not.toContain(secret);
  });
});
