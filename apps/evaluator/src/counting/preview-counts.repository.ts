import { Inject, Injectable } from '@nestjs/common';
import { inTransaction, poolOf, prepared } from '@rollout/platform/postgres';
import {
  BatchOutcome,
  CohortBatch,
  ConfigurationBatch,
  sequenceRuns,
} from '@rollout/domain/preview';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { Config, EVALUATOR_CONFIG } from '../config';
import { DeadLettersRepository } from '../dead-letters/dead-letters.repository';
import { ConfigurationTotalsRepository } from './configuration-totals.repository';
import { ConfigurationsRepository } from './configurations.repository';
import { CohortsRepository } from './cohorts.repository';
import { Query } from '../statements';

/** exclusion_violation: a sequence of the batch was counted meanwhile. */
const COUNTED_MEANWHILE = '23P01';

/**
 * `preview_counted`'s exclusion constraint admits a sequence once, so a message counts once
 * whatever the redeliveries and replicas; rows are locked in a fixed order so batches queue, not deadlock.
 */
@Injectable()
export class PreviewCountsRepository {
  private readonly pool: Pool;

  constructor(
    dataSource: DataSource,
    @Inject(EVALUATOR_CONFIG) private readonly config: Config,
    private readonly configurations: ConfigurationsRepository,
    private readonly cohorts: CohortsRepository,
    private readonly totals: ConfigurationTotalsRepository,
    private readonly deadLetters: DeadLettersRepository,
  ) {
    this.pool = poolOf(dataSource);
  }

  /** Spares a redelivery its evaluation and logs; `count` is safe without it (the constraint decides). */
  async counted(seqs: readonly number[]): Promise<Set<number>> {
    const counted = new Set<number>();
    if (seqs.length === 0) return counted;
    let min = Number.POSITIVE_INFINITY;
    let max = 0;
    for (const seq of seqs) {
      if (seq < min) min = seq;
      if (seq > max) max = seq;
    }
    const { rows } = await this.pool.query<{ lo: string; hi: string }>(
      prepared(
        `SELECT lo, hi FROM preview_counted WHERE int8range(lo, hi, '[]') && int8range($1, $2, '[]')`,
        [min, max],
      ),
    );
    for (const seq of seqs)
      if (rows.some((r) => seq >= Number(r.lo) && seq <= Number(r.hi))) counted.add(seq);
    return counted;
  }

  /** Throws, counting nothing, if another delivery counted one of its messages meanwhile. */
  async count(
    batch: Pick<BatchOutcome, 'configurations' | 'cohorts' | 'countedSeqs'> &
      Partial<Pick<BatchOutcome, 'deadLetters'>>,
  ): Promise<{ rows: number }> {
    let rows = 0;
    if (batch.countedSeqs.length === 0) return { rows };
    const { ids, cohorts } = await this.idsOf(batch).catch((error: unknown) => {
      this.forgetAll();
      throw error;
    });
    try {
      await inTransaction(this.pool, async (client) => {
        const query: Query = async (sql, params) => {
          const result = await client.query(prepared(sql, params));
          if (result.command !== 'SELECT') rows += result.rowCount ?? 0;
          return result.rows;
        };
        const runs = sequenceRuns(batch.countedSeqs);
        await query(
          `INSERT INTO preview_counted (lo, hi) SELECT * FROM unnest($1::bigint[], $2::bigint[])`,
          [runs.map((r) => r[0]), runs.map((r) => r[1])],
        );
        await this.add(query, batch.configurations, ids);
        await this.cohorts.add(query, cohorts, this.config.EVALUATOR_MAX_FLOWS);
        await this.deadLetters.add(query, batch.deadLetters ?? []);
      });
      return { rows };
    } catch (error) {
      if ((error as { code?: string }).code === COUNTED_MEANWHILE) {
        throw new Error(
          'a message of this batch was counted meanwhile by another delivery; the batch is tried again without it',
          { cause: error },
        );
      }
      // Ids cached here may name rows retention removed: look them up again on the retry.
      this.forgetAll();
      throw error;
    }
  }

  private async idsOf(batch: Pick<BatchOutcome, 'configurations' | 'cohorts'>): Promise<{
    ids: Map<ConfigurationBatch['target'], number>;
    cohorts: Map<CohortBatch, number>;
  }> {
    const ids = await this.configurations.idsOf(batch.configurations);
    return { ids, cohorts: await this.cohorts.idsOf(batch.cohorts, ids) };
  }

  private async add(
    query: Query,
    batches: ConfigurationBatch[],
    ids: Map<ConfigurationBatch['target'], number>,
  ): Promise<void> {
    const entries = batches
      .map((batch) => ({ batch, id: ids.get(batch.target) as number }))
      .sort((a, b) => a.id - b.id);
    // Configurations first, in id order: concurrent batches of one configuration queue here, not deadlock later.
    const locked = await query(
      `SELECT id FROM preview_configurations WHERE id = ANY($1::int[]) ORDER BY id FOR UPDATE`,
      [entries.map((e) => e.id)],
    );
    if (locked.length !== entries.length) {
      // Retention removed a configuration this replica still had cached: count again, from scratch.
      throw new Error('a preview configuration was removed by retention meanwhile');
    }
    await this.totals.add(query, entries);
  }

  forget(configurationIds: readonly number[]): void {
    const gone = new Set(configurationIds);
    this.configurations.forget(gone);
    this.cohorts.forget(gone);
  }

  private forgetAll(): void {
    this.configurations.forgetAll();
    this.cohorts.forgetAll();
  }
}
