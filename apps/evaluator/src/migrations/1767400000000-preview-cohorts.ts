import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Cross-experiment disagreement by cohort (preview.v1 1.8.0): the experiments ACTIVE together on
 * one live policy version form a cohort (its configurations, in bit order); a batch adds its
 * events and distinct connections by outcome mask (bit i: the cohort's i-th experiment denies),
 * only where the experiments do not all agree. A pair's disagreement is read from these (the
 * masks whose two bits differ), so ingest grows with the cohort's masks and distinct flows, never
 * with pairs of experiments. Flows are kept per cohort up to PREVIEW_DISAGREEMENT_FLOWS.
 *
 * The per-pair tables of 1767200000000 go: their counts cannot be spread back into masks, so a
 * preview running across the upgrade counts its disagreement afresh from it (docs/preview-reports.md).
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
