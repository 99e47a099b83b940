import { Injectable, Logger } from '@nestjs/common';
import { poolOf, prepared } from '@rollout/platform/postgres';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';

interface Applied {
  /** The preview's startTime (experiment.v1): another startPreview is another preview. */
  previewStart: string;
  appliedTime: Date;
}

/**
 * The report's `previewAppliedTime`: the first replica to write a preview's time keeps it, a new
 * startPreview replaces it. Writes leave the state follower at once and retry every second.
 */
@Injectable()
export class PreviewAppliedRepository {
  private readonly logger = new Logger(PreviewAppliedRepository.name);
  private readonly pool: Pool;
  private readonly pending = new Map<string, Applied>();
  private readonly written = new Map<string, string>();
  private writing?: Promise<void>;
  private retry?: NodeJS.Timeout;

  constructor(dataSource: DataSource) {
    this.pool = poolOf(dataSource);
  }

  note(experiment: string, previewStart: string, appliedTime: Date): void {
    if (this.written.get(experiment) === previewStart) return;
    if (this.pending.get(experiment)?.previewStart === previewStart) return;
    this.pending.set(experiment, { previewStart, appliedTime });
    this.write();
  }

  async read(experiment: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ applied_time: Date }>(
      prepared(`SELECT applied_time FROM preview_applied WHERE experiment = $1`, [experiment]),
    );
    return rows[0]?.applied_time.toISOString();
  }

  async settled(): Promise<void> {
    while (this.writing) await this.writing;
  }

  stop(): void {
    clearTimeout(this.retry);
  }

  private write(): void {
    if (this.writing || this.retry) return;
    this.writing = this.writePending()
      .catch((error: unknown) => {
        this.logger.warn({ err: error }, 'recording preview applied times failed; retrying');
        this.retry = setTimeout(() => {
          this.retry = undefined;
          this.write();
        }, 1_000);
        this.retry.unref();
      })
      .finally(() => {
        this.writing = undefined;
        if (this.pending.size > 0 && !this.retry) this.write();
      });
  }

  private async writePending(): Promise<void> {
    for (const [experiment, applied] of this.pending) {
      await this.pool.query(
        prepared(
          `INSERT INTO preview_applied (experiment, preview_start, applied_time) VALUES ($1, $2, $3)
           ON CONFLICT (experiment) DO UPDATE
           SET preview_start = EXCLUDED.preview_start, applied_time = EXCLUDED.applied_time
           WHERE preview_applied.preview_start <> EXCLUDED.preview_start`,
          [experiment, applied.previewStart, applied.appliedTime],
        ),
      );
      // Noted again meanwhile (a newer preview): keep that one pending.
      if (this.pending.get(experiment) === applied) this.pending.delete(experiment);
      this.written.set(experiment, applied.previewStart);
    }
  }
}
