import type { MigrationInterface, QueryRunner } from 'typeorm';

/** preview.v1 1.9.0: by policy id whether that policy exists or not. */
export class DeadLetters1767500000000 implements MigrationInterface {
  name = 'DeadLetters1767500000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE dead_letter_counts (
        project text NOT NULL,
        location text NOT NULL,
        policy text NOT NULL,
        reason text NOT NULL,
        messages bigint NOT NULL,
        last_time timestamptz NOT NULL,
        PRIMARY KEY (project, location, policy, reason)
      )`);
    await runner.query(
      `CREATE INDEX dead_letter_counts_last_time ON dead_letter_counts (last_time)`,
    );
    await runner.query(`
      CREATE TABLE dead_letter_samples (
        id bigserial PRIMARY KEY,
        project text NOT NULL,
        location text NOT NULL,
        policy text NOT NULL,
        reason text NOT NULL,
        detail text NOT NULL,
        time timestamptz NOT NULL
      )`);
    await runner.query(
      `CREATE INDEX dead_letter_samples_scope ON dead_letter_samples (project, location, id)`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE dead_letter_samples`);
    await runner.query(`DROP TABLE dead_letter_counts`);
  }
}
