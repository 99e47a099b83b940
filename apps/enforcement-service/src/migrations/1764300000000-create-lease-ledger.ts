import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `on_end_sent` makes on_end once per lease whoever ends it (a user, deletion, the end date,
 * Blazar). `decisions` has no foreign key, so a deleted lease's decisions stay.
 */
export class CreateLeaseLedger1764300000000 implements MigrationInterface {
  name = 'CreateLeaseLedger1764300000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE leases (
        uid uuid PRIMARY KEY,
        project text NOT NULL,
        lease_id text NOT NULL,
        origin text NOT NULL CHECK (origin IN ('API', 'BLAZAR')),
        blazar_name text,
        blazar_id text,
        name text NOT NULL,
        start_date timestamptz NOT NULL,
        end_date timestamptz NOT NULL,
        reservations jsonb NOT NULL,
        status text NOT NULL CHECK (status IN ('PENDING', 'ACTIVE', 'TERMINATED', 'ERROR')),
        status_reason text,
        creator text NOT NULL,
        region_name text NOT NULL,
        create_time timestamptz NOT NULL,
        update_time timestamptz NOT NULL,
        end_time timestamptz,
        on_end_sent boolean NOT NULL DEFAULT false,
        UNIQUE (project, lease_id)
      )`);
    await runner.query(
      `CREATE INDEX leases_live_by_project ON leases (project) WHERE status IN ('PENDING', 'ACTIVE')`,
    );
    await runner.query(
      `CREATE INDEX leases_live_by_end ON leases (end_date) WHERE status IN ('PENDING', 'ACTIVE')`,
    );
    await runner.query(
      `CREATE INDEX leases_pending_by_start ON leases (start_date) WHERE status = 'PENDING'`,
    );
    await runner.query(
      `CREATE INDEX leases_blazar_by_name ON leases (project, blazar_name) WHERE origin = 'BLAZAR'`,
    );
    await runner.query(
      `CREATE INDEX leases_blazar_by_id ON leases (project, blazar_id) WHERE origin = 'BLAZAR' AND blazar_id IS NOT NULL`,
    );
    await runner.query(`
      CREATE TABLE decisions (
        id bigserial PRIMARY KEY,
        lease_uid uuid NOT NULL,
        project text NOT NULL,
        lease_id text NOT NULL,
        hook text NOT NULL,
        result text NOT NULL,
        filter text,
        message text,
        exempted boolean NOT NULL,
        steps jsonb NOT NULL,
        time timestamptz NOT NULL,
        actor text NOT NULL,
        user_id text NOT NULL,
        request_id text
      )`);
    await runner.query(`CREATE INDEX decisions_by_lease ON decisions (lease_uid, id)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE decisions, leases');
  }
}
