import { Injectable } from '@nestjs/common';
import { BacktestOperation, BacktestResult, Status, StatusError } from '@rollout/contracts';
import { DataSource } from 'typeorm';

export const backtestOperationName = (id: string) => `operations/backtest-${id}`;

interface BacktestRow {
  id: string;
  experiment: string;
  done: boolean;
  messages_replayed: string;
  events_replayed: string;
  response: BacktestResult | null;
  error: Status | null;
  create_time: Date;
  update_time: Date;
  end_time: Date | null;
}

const COLUMNS =
  'id, experiment, done, messages_replayed, events_replayed, response, error, create_time, update_time, end_time';

export const RUNNER_GONE =
  'The evaluator running this backtest stopped before it finished; start the backtest again.';

/** Times are Postgres' own, so every replica reads the same heartbeat clock. */
@Injectable()
export class BacktestsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async create(id: string, experiment: string, runner: string): Promise<BacktestOperation> {
    const [row]: BacktestRow[] = await this.dataSource.query(
      `INSERT INTO preview_backtests (id, experiment, runner) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`,
      [id, experiment, runner],
    );
    return operationOf(row);
  }

  /** Also the heartbeat. */
  async progress(id: string, messages: number, events: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE preview_backtests SET messages_replayed = $2, events_replayed = $3, update_time = now() WHERE id = $1 AND NOT done`,
      [id, messages, events],
    );
  }

  async finish(id: string, result: BacktestResult): Promise<void> {
    await this.dataSource.query(
      `UPDATE preview_backtests SET done = true, response = $2, messages_replayed = $3, events_replayed = $4, update_time = now(), end_time = now()
       WHERE id = $1 AND NOT done`,
      [id, JSON.stringify(result), result.window.messagesReplayed, result.window.eventsReplayed],
    );
  }

  async fail(id: string, error: StatusError): Promise<void> {
    await this.dataSource.query(
      `UPDATE preview_backtests SET done = true, error = $2, update_time = now(), end_time = now() WHERE id = $1 AND NOT done`,
      [id, JSON.stringify(error.toStatus())],
    );
  }

  async housekeep(runner: string, staleMs: number, retentionMs: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE preview_backtests SET update_time = now() WHERE runner = $1 AND NOT done`,
      [runner],
    );
    await this.failStale(staleMs);
    await this.dataSource.query(
      `DELETE FROM preview_backtests WHERE done AND end_time < now() - make_interval(secs => $1)`,
      [retentionMs / 1000],
    );
  }

  async abandon(runner: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE preview_backtests SET done = true, error = $2, update_time = now(), end_time = now() WHERE runner = $1 AND NOT done`,
      [runner, JSON.stringify(gone())],
    );
  }

  /** Fails it first if its process stopped beating. */
  async get(id: string, staleMs: number): Promise<BacktestOperation | undefined> {
    await this.failStale(staleMs, id);
    const [row]: BacktestRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM preview_backtests WHERE id = $1`,
      [id],
    );
    return row && operationOf(row);
  }

  private async failStale(staleMs: number, id?: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE preview_backtests SET done = true, error = $2, end_time = now()
       WHERE NOT done AND update_time < now() - make_interval(secs => $1) AND ($3::uuid IS NULL OR id = $3)`,
      [staleMs / 1000, JSON.stringify(gone()), id ?? null],
    );
  }
}

const gone = () =>
  StatusError.withReason('ABORTED', RUNNER_GONE, 'BACKTEST_RUNNER_STOPPED').toStatus();

function operationOf(row: BacktestRow): BacktestOperation {
  return {
    name: backtestOperationName(row.id),
    done: row.done,
    metadata: {
      '@type': 'type.googleapis.com/policyrollout.preview.v1.BacktestMetadata',
      verb: 'backtest',
      target: row.experiment,
      createTime: row.create_time.toISOString(),
      updateTime: row.update_time.toISOString(),
      ...(row.end_time ? { endTime: row.end_time.toISOString() } : {}),
      messagesReplayed: Number(row.messages_replayed),
      eventsReplayed: Number(row.events_replayed),
    },
    ...(row.response
      ? {
          response: {
            '@type': 'type.googleapis.com/policyrollout.preview.v1.BacktestResult',
            ...row.response,
          },
        }
      : {}),
    ...(row.error ? { error: row.error } : {}),
  };
}
