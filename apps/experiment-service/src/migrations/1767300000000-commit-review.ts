import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Neither is an event stream: settings are configuration, and a proposal as an experiment event
 * would move the etag, which the evaluator reads as a new preview configuration.
 */
export class CommitReview1767300000000 implements MigrationInterface {
  name = 'CommitReview1767300000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE TABLE project_settings (
         project text PRIMARY KEY,
         require_commit_review boolean NOT NULL,
         version integer NOT NULL,
         update_time timestamptz NOT NULL
       )`,
    );
    await runner.query(
      `CREATE TABLE commit_proposals (
         experiment text PRIMARY KEY,
         proposal jsonb NOT NULL
       )`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE commit_proposals`);
    await runner.query(`DROP TABLE project_settings`);
  }
}
