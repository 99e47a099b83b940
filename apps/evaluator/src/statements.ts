/** A named prepared statement: parsed and planned once per connection. */
export type Query = (sql: string, params: unknown[]) => Promise<unknown[]>;

/** Key columns compared as Postgres's C collation would: rows are locked in this order. */
export const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
