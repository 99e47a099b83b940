import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the report's completeness (preview.v1 1.3.0) reads, each growing with what it shows:
 * `preview_configurations.redelivered` and `created_at` (existing rows get the migration's time,
 * the best there is); `preview_dead_letters` by reason while ACTIVE; `preview_traffic_drops`,
 * what TRAFFIC's limits removed before the evaluator read it (`dropped`) or may have
 * (`undetermined`), one row per observation that found some; and
 * `preview_traffic_stream.settled_seq`, the ack floor at the last observation, so the next one,
 * whichever replica makes it, knows what was read for sure.
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
