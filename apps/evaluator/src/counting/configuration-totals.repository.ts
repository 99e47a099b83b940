import { Injectable } from '@nestjs/common';
import { ConfigurationBatch, ConfigurationTotals } from '@rollout/domain/preview';
import { Query, compare } from '../statements';

/** Each configuration's totals, dead letters and minute buckets, added in the counting transaction (its rule transitions and flows are its cohorts'). */
@Injectable()
export class ConfigurationTotalsRepository {
  async add(query: Query, entries: { batch: ConfigurationBatch; id: number }[]): Promise<void> {
    const column = <T>(pick: (t: ConfigurationTotals, id: number) => T) =>
      entries.map(({ batch, id }) => pick(batch.totals, id));
    await query(
      `UPDATE preview_configurations c SET
           evaluated = c.evaluated + u.evaluated, changed = c.changed + u.changed,
           allow_to_deny = c.allow_to_deny + u.allow_to_deny, deny_to_allow = c.deny_to_allow + u.deny_to_allow,
           unchanged_allow = c.unchanged_allow + u.unchanged_allow, unchanged_deny = c.unchanged_deny + u.unchanged_deny,
           first_event_time = LEAST(c.first_event_time, to_timestamp(u.first_ms / 1000.0)),
           last_event_time = GREATEST(c.last_event_time, to_timestamp(u.last_ms / 1000.0)),
           redelivered = c.redelivered + u.redelivered, updated_at = now()
         FROM unnest($1::int[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::float8[], $9::float8[], $10::bigint[])
           AS u(id, evaluated, changed, allow_to_deny, deny_to_allow, unchanged_allow, unchanged_deny, first_ms, last_ms, redelivered)
         WHERE c.id = u.id`,
      [
        column((_, id) => id),
        column((t) => t.evaluated),
        column((t) => t.changed),
        column((t) => t.allowToDeny),
        column((t) => t.denyToAllow),
        column((t) => t.unchangedAllow),
        column((t) => t.unchangedDeny),
        // NULL (LEAST and GREATEST skip it) for a configuration that only lost messages in this batch.
        column((t) => (t.evaluated ? t.firstEventMs : null)),
        column((t) => (t.evaluated ? t.lastEventMs : null)),
        entries.map(({ batch }) => batch.redelivered),
      ],
    );
    const minutes: [number, number, number, number, number, number][] = [];
    const deadLetters: [number, string, number][] = [];
    for (const { batch, id } of entries) {
      for (const [reason, count] of batch.deadLettered) deadLetters.push([id, reason, count]);
      for (const [start, b] of batch.totals.minutes)
        minutes.push([id, start, b.evaluated, b.changed, b.allowToDeny, b.denyToAllow]);
    }
    minutes.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    deadLetters.sort((a, b) => a[0] - b[0] || compare(a[1], b[1]));
    // One statement for both (a data-modifying WITH runs whether or not it is read).
    await query(
      `WITH dead_letters AS (
         INSERT INTO preview_dead_letters AS d (configuration_id, reason, messages)
         SELECT * FROM unnest($7::int[], $8::text[], $9::bigint[])
         ON CONFLICT (configuration_id, reason) DO UPDATE SET messages = d.messages + excluded.messages
       )
       INSERT INTO preview_time_buckets AS b (configuration_id, width_seconds, start_time, evaluated, changed, allow_to_deny, deny_to_allow)
       SELECT u.c, 60, to_timestamp(u.s / 1000.0), u.e, u.ch, u.ad, u.da
       FROM unnest($1::int[], $2::float8[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[]) AS u(c, s, e, ch, ad, da)
       ON CONFLICT (configuration_id, width_seconds, start_time) DO UPDATE SET
         evaluated = b.evaluated + excluded.evaluated, changed = b.changed + excluded.changed,
         allow_to_deny = b.allow_to_deny + excluded.allow_to_deny, deny_to_allow = b.deny_to_allow + excluded.deny_to_allow`,
      [...transpose(minutes, 6), ...transpose(deadLetters, 3)],
    );
  }
}

/** Rows as the columns unnest() takes. */
function transpose<T extends unknown[]>(rows: T[], width: number): unknown[][] {
  const columns: unknown[][] = Array.from({ length: width }, () => []);
  for (const row of rows) for (let i = 0; i < width; i++) columns[i].push(row[i]);
  return columns;
}
