import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Writes grow with the distinct outcomes, not the cohort's size: transitions are derived on read.
 * preview_transitions is only read now.
 */
export class PreviewOutcomes1767700000000 implements MigrationInterface {
  name = 'PreviewOutcomes1767700000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE preview_outcomes (
        cohort_id int NOT NULL REFERENCES preview_cohorts (id) ON DELETE CASCADE,
        live_priority int NOT NULL,
        live_action text NOT NULL,
        experiment_priorities int[] NOT NULL,
        experiment_actions text NOT NULL,
        count bigint NOT NULL,
        PRIMARY KEY (cohort_id, live_priority, live_action, experiment_priorities, experiment_actions)
      ) WITH (fillfactor = 80)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE preview_outcomes`);
  }
}
