import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Log records double as the processed-event record: counters move in the transaction that proves an event new. */
export class CreatePreviewStore1765000000000 implements MigrationInterface {
  name = 'CreatePreviewStore1765000000000';

  async up(runner: QueryRunner): Promise<void> {
    // One experiment version: the unit a record id is deterministic in.
    await runner.query(`
      CREATE TABLE preview_versions (
        id serial PRIMARY KEY,
        experiment text NOT NULL,
        experiment_etag text NOT NULL,
        UNIQUE (experiment, experiment_etag)
      )`);
    await runner.query(`
      CREATE TABLE preview_configurations (
        id serial PRIMARY KEY,
        version_id int NOT NULL REFERENCES preview_versions (id),
        experiment text NOT NULL,
        live_policy_etag text NOT NULL,
        evaluated bigint NOT NULL DEFAULT 0,
        changed bigint NOT NULL DEFAULT 0,
        allow_to_deny bigint NOT NULL DEFAULT 0,
        deny_to_allow bigint NOT NULL DEFAULT 0,
        unchanged_allow bigint NOT NULL DEFAULT 0,
        unchanged_deny bigint NOT NULL DEFAULT 0,
        first_event_time timestamptz,
        last_event_time timestamptz,
        UNIQUE (version_id, live_policy_etag)
      )`);
    await runner.query(
      `CREATE INDEX preview_configurations_by_experiment ON preview_configurations (experiment, id)`,
    );
    // The primary key is the processed-event record: (experiment version, traffic event id) once.
    await runner.query(`
      CREATE TABLE preview_logs (
        version_id int NOT NULL,
        event_id text NOT NULL,
        configuration_id int NOT NULL,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        changed boolean NOT NULL,
        record text NOT NULL,
        PRIMARY KEY (version_id, event_id)
      )`);
    await runner.query(`CREATE INDEX preview_logs_page ON preview_logs (configuration_id, seq)`);
    await runner.query(
      `CREATE INDEX preview_logs_changed_page ON preview_logs (configuration_id, seq) WHERE changed`,
    );
    // side: 0 the live policy, 1 the experiment; priority -1 is the implied rule.
    await runner.query(`
      CREATE TABLE preview_rule_counts (
        configuration_id int NOT NULL,
        side smallint NOT NULL,
        priority int NOT NULL,
        action text NOT NULL,
        count bigint NOT NULL,
        PRIMARY KEY (configuration_id, side, priority, action)
      )`);
    await runner.query(`
      CREATE TABLE preview_changed_sources (
        configuration_id int NOT NULL,
        src_ip text NOT NULL,
        count bigint NOT NULL,
        PRIMARY KEY (configuration_id, src_ip)
      )`);
    await runner.query(`
      CREATE TABLE preview_changed_ports (
        configuration_id int NOT NULL,
        protocol text NOT NULL,
        dest_port int NOT NULL,
        count bigint NOT NULL,
        PRIMARY KEY (configuration_id, protocol, dest_port)
      )`);
    await runner.query(`
      CREATE TABLE preview_log_outbox (
        id bigserial PRIMARY KEY,
        subject text NOT NULL,
        configuration_id int NOT NULL,
        seqs bigint[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(
      `DROP TABLE preview_log_outbox, preview_changed_ports, preview_changed_sources, preview_rule_counts, preview_logs, preview_configurations, preview_versions`,
    );
  }
}
