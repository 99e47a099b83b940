import type { MigrationInterface, QueryRunner } from 'typeorm';

/** preview.v1 1.9.0: keyed by the preview's start time, so a restart keeps the first time. */
export class PreviewApplied1767600000000 implements MigrationInterface {
  name = 'PreviewApplied1767600000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE preview_applied (
        experiment text PRIMARY KEY,
        preview_start text NOT NULL,
        applied_time timestamptz NOT NULL
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE preview_applied`);
  }
}
