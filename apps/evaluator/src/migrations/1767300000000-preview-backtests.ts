import type { MigrationInterface, QueryRunner } from 'typeorm';

/** preview.v1 1.7.0: `update_time` is the heartbeat, so a backtest whose process died is failed. */
export class PreviewBacktests1767300000000 implements MigrationInterface {
  name = 'PreviewBacktests1767300000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE preview_backtests (
        id uuid PRIMARY KEY,
        experiment text NOT NULL,
        runner text NOT NULL,
        done boolean NOT NULL DEFAULT false,
        messages_replayed bigint NOT NULL DEFAULT 0,
        events_replayed bigint NOT NULL DEFAULT 0,
        response jsonb,
        error jsonb,
        create_time timestamptz NOT NULL DEFAULT now(),
        update_time timestamptz NOT NULL DEFAULT now(),
        end_time timestamptz
      )`);
    await runner.query(
      `CREATE INDEX preview_backtests_running ON preview_backtests (update_time) WHERE NOT done`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE preview_backtests`);
  }
}
