import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Not part of `resource`: the other commands rewrite the resource from state, which does not hold the analysis. */
export class ExperimentAnalysis1767100000000 implements MigrationInterface {
  name = 'ExperimentAnalysis1767100000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE experiments ADD COLUMN analysis jsonb`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE experiments DROP COLUMN analysis`);
  }
}
