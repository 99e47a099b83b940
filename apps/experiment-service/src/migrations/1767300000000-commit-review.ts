import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reviewed commits (experiment.v1 1.6.0). `project_settings`: whether a project's commits need
 * another editor's approval, a row only once a project's settings were changed (no row: the
 * defaults). `commit_proposals`: the proposal waiting on each experiment, bound to the etag it
 * was made on. Neither is an event stream: settings are configuration, and a proposal as an
 * experiment event would move the experiment's etag, which the evaluator reads as a new preview
 * configuration. What was proposed and approved is recorded in the commit's event.
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
