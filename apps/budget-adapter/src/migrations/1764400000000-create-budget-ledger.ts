import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `projects` rows are locked by every change to a project's charges, so concurrent grants (replicas
 * included) never spend the same budget twice; `quota_grants` keeps each answer by dedup id, so a
 * retry is charged once.
 */
export class CreateBudgetLedger1764400000000 implements MigrationInterface {
  name = 'CreateBudgetLedger1764400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE sessions (
        id text PRIMARY KEY,
        config_key text NOT NULL UNIQUE,
        config jsonb NOT NULL,
        refs integer NOT NULL CHECK (refs > 0),
        create_time timestamptz NOT NULL,
        update_time timestamptz NOT NULL
      )`);
    await runner.query(`CREATE TABLE projects (project text PRIMARY KEY)`);
    await runner.query(`
      CREATE TABLE lease_charges (
        project text NOT NULL REFERENCES projects (project),
        lease_key text NOT NULL,
        resource_type text NOT NULL,
        hours numeric NOT NULL CHECK (hours >= 0),
        update_time timestamptz NOT NULL,
        PRIMARY KEY (project, lease_key, resource_type)
      )`);
    await runner.query(
      `CREATE INDEX lease_charges_by_type ON lease_charges (project, resource_type)`,
    );
    await runner.query(`
      CREATE TABLE quota_grants (
        dedup_id text PRIMARY KEY,
        project text NOT NULL,
        lease_key text NOT NULL,
        result jsonb NOT NULL,
        create_time timestamptz NOT NULL
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE quota_grants, lease_charges, projects, sessions');
  }
}
