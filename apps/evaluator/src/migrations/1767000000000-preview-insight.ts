import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * preview.v1 1.2.0. Transitions' margins are the rule counts, so `preview_rule_counts` is no
 * longer written; time buckets are minutes near the last event, hours before (PreviewRetention).
 */
export class PreviewInsight1767000000000 implements MigrationInterface {
  name = 'PreviewInsight1767000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE preview_transitions (
        configuration_id int NOT NULL,
        live_priority int NOT NULL,
        live_action text NOT NULL,
        experiment_priority int NOT NULL,
        experiment_action text NOT NULL,
        count bigint NOT NULL,
        PRIMARY KEY (configuration_id, live_priority, live_action, experiment_priority, experiment_action)
      ) WITH (fillfactor = 80)`);
    await runner.query(`
      CREATE TABLE preview_time_buckets (
        configuration_id int NOT NULL,
        width_seconds int NOT NULL,
        start_time timestamptz NOT NULL,
        evaluated bigint NOT NULL,
        changed bigint NOT NULL,
        allow_to_deny bigint NOT NULL,
        deny_to_allow bigint NOT NULL,
        PRIMARY KEY (configuration_id, width_seconds, start_time)
      ) WITH (fillfactor = 80)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE preview_time_buckets`);
    await runner.query(`DROP TABLE preview_transitions`);
  }
}
