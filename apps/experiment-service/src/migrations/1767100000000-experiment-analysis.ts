import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The static analysis of each experiment (experiment.v1 1.3.0), computed at create and update.
 * A column of its own, not part of `resource`: the other commands rewrite the resource from the
 * experiment's state, which does not hold the analysis, and must leave it as it is.
 */
export class ExperimentAnalysis1767100000000 implements MigrationInterface {
  name = 'ExperimentAnalysis1767100000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE experiments ADD COLUMN analysis jsonb`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE experiments DROP COLUMN analysis`);
  }
}
