import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When the evaluator first applied each experiment's preview (the report's previewAppliedTime,
 * preview.v1 1.9.0), keyed by the preview's start time: applying the same preview again (a
 * restart, another replica) keeps the first time; another startPreview replaces it.
 */
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
