import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * preview.v1 1.8.0: ingest grows with a cohort's masks, never with pairs. Per-pair counts cannot be
 * spread back into masks, so a preview across the upgrade counts disagreement afresh.
 */
export class PreviewCohorts1767400000000 implements MigrationInterface {
  name = 'PreviewCohorts1767400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE preview_cohorts (
        id serial PRIMARY KEY,
        configuration_ids int[] NOT NULL UNIQUE,
        flows int NOT NULL DEFAULT 0
      )`);
    await runner.query(
      `CREATE INDEX preview_cohorts_members ON preview_cohorts USING gin (configuration_ids)`,
    );
    await runner.query(`
      CREATE TABLE preview_cohort_masks (
        cohort_id int NOT NULL REFERENCES preview_cohorts (id) ON DELETE CASCADE,
        mask int NOT NULL,
        events bigint NOT NULL,
        PRIMARY KEY (cohort_id, mask)
      )`);
    await runner.query(`
      CREATE TABLE preview_cohort_flows (
        cohort_id int NOT NULL REFERENCES preview_cohorts (id) ON DELETE CASCADE,
        direction text NOT NULL,
        src_ip inet NOT NULL,
        dest_ip inet NOT NULL,
        protocol text NOT NULL,
        dest_port int NOT NULL,
        mask int NOT NULL,
        count bigint NOT NULL,
        PRIMARY KEY (cohort_id, direction, src_ip, dest_ip, protocol, dest_port, mask)
      ) WITH (fillfactor = 80)`);
    await runner.query(`DROP TABLE preview_disagreement_flows`);
    await runner.query(`DROP TABLE preview_disagreements`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE preview_disagreements (
        configuration_id int NOT NULL,
        other_experiment text NOT NULL,
        other_etag text NOT NULL,
        events bigint NOT NULL,
        flows int NOT NULL DEFAULT 0,
        outside bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (configuration_id, other_experiment, other_etag)
      )`);
    await runner.query(`
      CREATE TABLE preview_disagreement_flows (
        configuration_id int NOT NULL,
        other_experiment text NOT NULL,
        other_etag text NOT NULL,
        direction text NOT NULL,
        src_ip inet NOT NULL,
        dest_ip inet NOT NULL,
        protocol text NOT NULL,
        dest_port int NOT NULL,
        action text NOT NULL,
        count bigint NOT NULL,
        PRIMARY KEY (configuration_id, other_experiment, other_etag, direction, src_ip, dest_ip, protocol, dest_port, action)
      ) WITH (fillfactor = 80)`);
    await runner.query(`DROP TABLE preview_cohort_flows`);
    await runner.query(`DROP TABLE preview_cohort_masks`);
    await runner.query(`DROP TABLE preview_cohorts`);
  }
}
