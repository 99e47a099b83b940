import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateEventStore1764000000000 implements MigrationInterface {
  name = 'CreateEventStore1764000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE TABLE event_streams (stream_id text PRIMARY KEY, version integer NOT NULL)`,
    );
    await runner.query(`
      CREATE TABLE events (
        position bigserial PRIMARY KEY,
        tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
        event_id uuid NOT NULL UNIQUE,
        stream_id text NOT NULL,
        version integer NOT NULL,
        type text NOT NULL,
        data jsonb NOT NULL,
        metadata jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (stream_id, version)
      )`);
    await runner.query(`CREATE INDEX events_by_transaction ON events (tx_id, position)`);
    await runner.query(
      `CREATE TABLE relay_checkpoints (name text PRIMARY KEY, tx_id xid8 NOT NULL, position bigint NOT NULL)`,
    );
    await runner.query(`
      CREATE TABLE idempotent_requests (
        request_id text PRIMARY KEY,
        response jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE idempotent_requests, relay_checkpoints, events, event_streams`);
  }
}

/** An answer kept under its own name is stored once, here, whether or not a request id came. */
export class AnswerNames1767200000000 implements MigrationInterface {
  name = 'AnswerNames1767200000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE idempotent_requests ADD COLUMN answer_name text`);
    await runner.query(
      `CREATE UNIQUE INDEX idempotent_requests_by_answer_name ON idempotent_requests (answer_name) WHERE answer_name IS NOT NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE idempotent_requests DROP COLUMN answer_name`);
  }
}

/** An answer already kept under a request id is only named, so a retry still gets its first answer. */
export async function adoptNamedAnswers(runner: QueryRunner, source: string): Promise<void> {
  await runner.query(
    `UPDATE idempotent_requests r SET answer_name = s.name
       FROM (${source}) s WHERE r.response ->> 'name' = s.name`,
  );
  await runner.query(
    `INSERT INTO idempotent_requests (request_id, response)
     SELECT s.name, s.answer FROM (${source}) s
      WHERE NOT EXISTS (SELECT 1 FROM idempotent_requests r WHERE r.answer_name = s.name)`,
  );
}

export async function releaseNamedAnswers(runner: QueryRunner, target: string): Promise<void> {
  await runner.query(
    `INSERT INTO ${target} SELECT coalesce(answer_name, request_id), response FROM idempotent_requests
      WHERE answer_name IS NOT NULL OR response ->> 'name' = request_id`,
  );
  await runner.query(`DELETE FROM idempotent_requests WHERE response ->> 'name' = request_id`);
  await runner.query(`UPDATE idempotent_requests SET answer_name = NULL`);
}
