import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `on_end_outbox.pending`: the filters still owed (NULL: all, not tried yet); `next_attempt_at`
 * is also the trying replica's claim. `adapter_session_closes` is never abandoned.
 */
export class CreateDeliveryOutboxes1766700000000 implements MigrationInterface {
  name = 'CreateDeliveryOutboxes1766700000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE on_end_outbox (
        id bigserial PRIMARY KEY,
        lease_uid uuid NOT NULL UNIQUE,
        project text NOT NULL,
        lease_id text NOT NULL,
        actor text NOT NULL,
        context jsonb NOT NULL,
        lease jsonb NOT NULL,
        pending text[],
        attempts int NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        last_error text,
        created_at timestamptz NOT NULL,
        abandoned_at timestamptz
      )`);
    await runner.query(
      `CREATE INDEX on_end_outbox_due ON on_end_outbox (next_attempt_at) WHERE abandoned_at IS NULL`,
    );
    await runner.query(`
      CREATE TABLE adapter_session_closes (
        adapter text NOT NULL,
        session_id text NOT NULL,
        handler text NOT NULL,
        attempts int NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        last_error text,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (adapter, session_id)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE adapter_session_closes, on_end_outbox');
  }
}
