import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateReadModels1764000000001 implements MigrationInterface {
  name = 'CreateReadModels1764000000001';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE TABLE policies (name text PRIMARY KEY, parent text NOT NULL, resource jsonb NOT NULL)`,
    );
    await runner.query(`CREATE INDEX policies_by_parent ON policies (parent, name)`);
    await runner.query(`
      CREATE TABLE experiments (
        name text PRIMARY KEY,
        policy_name text NOT NULL,
        state text,
        resource jsonb NOT NULL
      )`);
    await runner.query(`CREATE INDEX experiments_by_policy ON experiments (policy_name, name)`);
    await runner.query(`CREATE TABLE operations (name text PRIMARY KEY, operation jsonb NOT NULL)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE operations, experiments, policies`);
  }
}
