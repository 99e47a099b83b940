import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Backtests (preview.v1 1.7.0): one row per backtest operation, its progress and, once done, its
 * result or error as JSON. Apart from the live report's tables, which a backtest never writes.
 * `runner` names the evaluator process running it; `update_time` is its heartbeat, so a backtest
 * whose process died is found and failed.
 */
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
