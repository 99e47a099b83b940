import type { MigrationInterface, QueryRunner } from 'typeorm';

/** preview.v1 1.3.0: rows grow with the pairs and their distinct flows, never with the traffic. */
export class PreviewDisagreements1767200000000 implements MigrationInterface {
  name = 'PreviewDisagreements1767200000000';

  async up(runner: QueryRunner): Promise<void> {
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
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE preview_disagreement_flows`);
    await runner.query(`DROP TABLE preview_disagreements`);
  }
}
