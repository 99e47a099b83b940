import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One row per flow whichever members it concerns, so writes do not grow with the cohort's size.
 * preview_flows move in as one-member cohorts with the same ids, so page tokens stay valid.
 */
export class PreviewOutcomeFlows1767800000000 implements MigrationInterface {
  name = 'PreviewOutcomeFlows1767800000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE preview_outcome_flows (
        cohort_id int NOT NULL REFERENCES preview_cohorts (id) ON DELETE CASCADE,
        id bigint GENERATED ALWAYS AS IDENTITY,
        direction text NOT NULL,
        src_ip inet NOT NULL,
        dest_ip inet NOT NULL,
        protocol text NOT NULL,
        dest_port int NOT NULL,
        live_priority int NOT NULL,
        live_action text NOT NULL,
        experiment_priorities int[] NOT NULL,
        experiment_actions text NOT NULL,
        mask int NOT NULL,
        count bigint NOT NULL,
        first_event_time timestamptz NOT NULL,
        last_event_time timestamptz NOT NULL,
        samples jsonb NOT NULL,
        PRIMARY KEY (cohort_id, direction, src_ip, dest_ip, protocol, dest_port, live_priority, live_action,
                     experiment_priorities, experiment_actions)
      ) WITH (fillfactor = 80)`);
    // A merged flow's page cursor and samples name its rows by id.
    await runner.query(
      `CREATE UNIQUE INDEX preview_outcome_flows_id ON preview_outcome_flows (id)`,
    );
    await runner.query(`ALTER TABLE preview_outcomes ADD COLUMN outside bigint NOT NULL DEFAULT 0`);
    await runner.query(`
      INSERT INTO preview_cohorts (configuration_ids)
      SELECT DISTINCT ARRAY[configuration_id] FROM preview_flows ON CONFLICT DO NOTHING`);
    await runner.query(`
      INSERT INTO preview_outcome_flows (cohort_id, id, direction, src_ip, dest_ip, protocol, dest_port, live_priority,
        live_action, experiment_priorities, experiment_actions, mask, count, first_event_time, last_event_time, samples)
      OVERRIDING SYSTEM VALUE
      SELECT c.id, f.id, f.direction, f.src_ip, f.dest_ip, f.protocol, f.dest_port, f.live_rule, f.live_action,
             ARRAY[f.experiment_rule], CASE f.live_action WHEN 'allow' THEN 'd' ELSE 'a' END,
             CASE f.live_action WHEN 'allow' THEN 1 ELSE 0 END, f.count, f.first_event_time, f.last_event_time, f.samples
      FROM preview_flows f JOIN preview_cohorts c ON c.configuration_ids = ARRAY[f.configuration_id]`);
    await runner.query(
      `SELECT setval(pg_get_serial_sequence('preview_outcome_flows', 'id'), COALESCE((SELECT max(id) FROM preview_outcome_flows), 0) + 1, false)`,
    );
    await runner.query(`
      UPDATE preview_cohorts c SET flows = (SELECT count(*) FROM preview_outcome_flows f WHERE f.cohort_id = c.id)`);
    await runner.query(`DROP TABLE preview_flows`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE preview_flows (
        configuration_id int NOT NULL,
        id bigint GENERATED ALWAYS AS IDENTITY,
        direction text NOT NULL,
        src_ip inet NOT NULL,
        dest_ip inet NOT NULL,
        protocol text NOT NULL,
        dest_port int NOT NULL,
        live_rule int NOT NULL,
        experiment_rule int NOT NULL,
        live_action text NOT NULL,
        count bigint NOT NULL,
        first_event_time timestamptz NOT NULL,
        last_event_time timestamptz NOT NULL,
        samples jsonb NOT NULL,
        PRIMARY KEY (configuration_id, direction, src_ip, dest_ip, protocol, dest_port, live_rule, experiment_rule)
      ) WITH (fillfactor = 80)`);
    // Only one-member cohorts map back to a configuration's flows; the rest are lost going down.
    await runner.query(`
      INSERT INTO preview_flows (configuration_id, direction, src_ip, dest_ip, protocol, dest_port, live_rule,
        experiment_rule, live_action, count, first_event_time, last_event_time, samples)
      SELECT c.configuration_ids[1], f.direction, f.src_ip, f.dest_ip, f.protocol, f.dest_port, f.live_priority,
             f.experiment_priorities[1], f.live_action, f.count, f.first_event_time, f.last_event_time, f.samples
      FROM preview_outcome_flows f JOIN preview_cohorts c ON c.id = f.cohort_id
      WHERE cardinality(c.configuration_ids) = 1 AND left(f.experiment_actions, 1) <> left(f.live_action, 1)`);
    await runner.query(`ALTER TABLE preview_outcomes DROP COLUMN outside`);
    await runner.query(`DROP TABLE preview_outcome_flows`);
  }
}
