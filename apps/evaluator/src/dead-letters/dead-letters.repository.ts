import { Injectable } from '@nestjs/common';
import { DEAD_LETTER_SAMPLES, DeadLetterSample } from '@rollout/contracts';
import { poolOf, prepared } from '@rollout/platform/postgres';
import {
  DeadLetterCountRow,
  DeadLetterEntry,
  DeadLetterScope,
  deadLetterRecord,
} from '@rollout/domain/preview';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { Query, compare } from '../statements';

type Scope = Omit<DeadLetterScope, 'policy'> & { policy?: string };

/** `add` runs inside the counting transaction, so a redelivery adds nothing twice. */
@Injectable()
export class DeadLettersRepository {
  private readonly pool: Pool;

  constructor(dataSource: DataSource) {
    this.pool = poolOf(dataSource);
  }

  async add(query: Query, entries: readonly DeadLetterEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const records = entries.map(deadLetterRecord);
    const counts = new Map<string, { scope: string[]; messages: number }>();
    for (const r of records) {
      const scope = [r.project, r.location, r.policy, r.reason];
      const key = scope.join('\n');
      const count = counts.get(key);
      if (count) count.messages++;
      else counts.set(key, { scope, messages: 1 });
    }
    // Rows in a fixed order: concurrent batches queue on them rather than deadlock.
    const rows = [...counts.entries()].sort((a, b) => compare(a[0], b[0])).map(([, c]) => c);
    const column = (i: number) => rows.map((row) => row.scope[i]);
    await query(
      `INSERT INTO dead_letter_counts (project, location, policy, reason, messages, last_time)
       SELECT p, l, f, r, n, now()
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[]) AS t(p, l, f, r, n)
       ON CONFLICT (project, location, policy, reason) DO UPDATE
       SET messages = dead_letter_counts.messages + EXCLUDED.messages, last_time = EXCLUDED.last_time`,
      [column(0), column(1), column(2), column(3), rows.map((row) => row.messages)],
    );
    // Only the newest few of each scope are worth writing; older ones would go at once.
    const kept = new Map<string, number>();
    const samples = records
      .reverse()
      .filter((r) => {
        const scope = `${r.project}\n${r.location}`;
        const n = kept.get(scope) ?? 0;
        kept.set(scope, n + 1);
        return n < DEAD_LETTER_SAMPLES;
      })
      .reverse();
    // One writer of a scope's samples at a time (in a fixed order): trimming never deadlocks.
    const scopes = [...kept.keys()].sort(compare).map((scope) => scope.split('\n'));
    await query(
      `SELECT pg_advisory_xact_lock(hashtext('dead_letter_samples/' || p || '/' || l))
       FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(p, l, i) ORDER BY i`,
      [scopes.map((s) => s[0]), scopes.map((s) => s[1])],
    );
    // Stamped under the lock (clock_timestamp, not the transaction's start): a batch that waited
    // for it must not list as newer than the one it waited for.
    await query(
      `INSERT INTO dead_letter_samples (project, location, policy, reason, detail, time)
       SELECT p, l, f, r, d, clock_timestamp()
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS t(p, l, f, r, d)`,
      [
        samples.map((s) => s.project),
        samples.map((s) => s.location),
        samples.map((s) => s.policy),
        samples.map((s) => s.reason),
        samples.map((s) => s.detail),
      ],
    );
    await query(
      `DELETE FROM dead_letter_samples WHERE id IN (
         SELECT id FROM (
           SELECT id, row_number() OVER (PARTITION BY project, location ORDER BY id DESC) AS n
           FROM dead_letter_samples
           WHERE (project, location) IN (SELECT * FROM unnest($1::text[], $2::text[]))
         ) ranked WHERE n > $3)`,
      [scopes.map((s) => s[0]), scopes.map((s) => s[1]), DEAD_LETTER_SAMPLES],
    );
  }

  async read(scope: Scope): Promise<{ counts: DeadLetterCountRow[]; samples: DeadLetterSample[] }> {
    const params = [scope.project, scope.location, scope.policy ?? null];
    const [counts, samples] = await Promise.all([
      this.pool.query<{ policy: string; reason: string; messages: string; last_time: Date }>(
        prepared(
          `SELECT policy, reason, messages, last_time FROM dead_letter_counts
           WHERE project = $1 AND location = $2 AND ($3::text IS NULL OR policy = $3)`,
          params,
        ),
      ),
      this.pool.query<{ time: Date; policy: string; reason: string; detail: string }>(
        prepared(
          `SELECT time, policy, reason, detail FROM dead_letter_samples
           WHERE project = $1 AND location = $2 AND ($3::text IS NULL OR policy = $3)
           ORDER BY id DESC LIMIT ${DEAD_LETTER_SAMPLES}`,
          params,
        ),
      ),
    ]);
    return {
      counts: counts.rows.map((r) => ({
        policy: r.policy,
        reason: r.reason,
        messages: Number(r.messages),
        lastTime: r.last_time,
      })),
      samples: samples.rows.map((r) => ({
        time: r.time.toISOString(),
        policy: r.policy,
        reason: r.reason,
        detail: r.detail,
      })),
    };
  }

  async removeBefore(cutoff: string): Promise<void> {
    await this.pool.query(`DELETE FROM dead_letter_counts WHERE last_time < $1`, [cutoff]);
    await this.pool.query(`DELETE FROM dead_letter_samples WHERE time < $1`, [cutoff]);
  }
}
