import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each command's answer is kept once, in the event store's answer record (see AnswerNames):
 * the Operations of `operations` move there under their names. An Operation already kept under
 * its request id is the same answer: it is only named, so a retry still gets its first answer and
 * GET /v1/operations/{name} still finds it. Runs after AnswerNames1767200000000.
 */
export class OneAnswerRecord1767200000001 implements MigrationInterface {
  name = 'OneAnswerRecord1767200000001';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `UPDATE idempotent_requests r SET answer_name = o.name
         FROM operations o WHERE r.response ->> 'name' = o.name`,
    );
    await runner.query(
      `INSERT INTO idempotent_requests (request_id, answer_name, response)
       SELECT o.name, o.name, o.operation FROM operations o
        WHERE NOT EXISTS (SELECT 1 FROM idempotent_requests r WHERE r.answer_name = o.name)`,
    );
    await runner.query(`DROP TABLE operations`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE operations (name text PRIMARY KEY, operation jsonb NOT NULL)`);
    await runner.query(
      `INSERT INTO operations (name, operation)
       SELECT answer_name, response FROM idempotent_requests WHERE answer_name IS NOT NULL`,
    );
    await runner.query(`DELETE FROM idempotent_requests WHERE request_id = answer_name`);
    await runner.query(`UPDATE idempotent_requests SET answer_name = NULL`);
  }
}
