import type { ConfigurationBatch } from '@rollout/domain/preview';

/** Runs a fixed statement of the counting transaction as a named prepared statement (parsed and planned once per connection). */
export type Query = (sql: string, params: unknown[]) => Promise<unknown[]>;

/** One configuration's part of a batch, with the configuration's row id. */
export interface ConfigurationEntry {
  batch: ConfigurationBatch;
  id: number;
}

/** Key columns compared as Postgres's C collation would: rows are locked in this order. */
export const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
