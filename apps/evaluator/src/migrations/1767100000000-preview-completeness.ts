import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * preview.v1 1.3.0's completeness. Existing rows get the migration's time as `created_at`, the best
 * there is; `settled_seq` lets the next drop observation, on any replica, know what was read.
 */
export class PreviewCompleteness1767100000000 implements MigrationInterface {
  name = 'PreviewCompleteness1767100000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE preview_configurations
        ADD COLUMN redelivered bigint NOT NULL DEFAULT 0,
        ADD COLUMN created_at timestamptz NOT NULL DEFAULT now()`);
    await runner.query(`
      CREATE TABLE preview_dead_letters (
        configuration_id int NOT NULL,
        reason text NOT NULL,
        messages bigint NOT NULL,
        PRIMARY KEY (configuration_id, reason)
      )`);
    await runner.query(`
      CREATE TABLE preview_traffic_drops (
        through_seq bigint PRIMARY KEY,
        observed_at timestamptz NOT NULL DEFAULT now(),
        dropped bigint NOT NULL,
        undetermined bigint NOT NULL
      )`);
    await runner.query(`ALTER TABLE preview_traffic_stream ADD COLUMN settled_seq bigint`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE preview_traffic_stream DROP COLUMN settled_seq`);
    await runner.query(`DROP TABLE preview_traffic_drops`);
    await runner.query(`DROP TABLE preview_dead_letters`);
    await runner.query(
      `ALTER TABLE preview_configurations DROP COLUMN created_at, DROP COLUMN redelivered`,
    );
  }
}
