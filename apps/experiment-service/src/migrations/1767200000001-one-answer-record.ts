import { adoptNamedAnswers, releaseNamedAnswers } from '@rollout/platform/event-store';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each command's answer is kept once, in the event store's answer record (see AnswerNames): the
 * Operations of `operations` move there under their names, and GET /v1/operations/{name} and a
 * retried request still find each one. Runs after AnswerNames1767200000000.
 */
export class OneAnswerRecord1767200000001 implements MigrationInterface {
  name = 'OneAnswerRecord1767200000001';

  async up(runner: QueryRunner): Promise<void> {
    await adoptNamedAnswers(runner, `SELECT name, operation AS answer FROM operations`);
    await runner.query(`DROP TABLE operations`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE operations (name text PRIMARY KEY, operation jsonb NOT NULL)`);
    await releaseNamedAnswers(runner, `operations (name, operation)`);
  }
}
