/** AIP-160. Terms come one at a time, so a list reports the first error in reading order. */
export const FILTER_OPERATORS = ['!=', '<=', '>=', '=', '<', '>', ':'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export interface FilterJoin {
  keyword: 'AND' | 'OR';
  /** The lease list has always taken `or` as well. */
  anyCase?: boolean;
}

/** `text` is the term as written, through to the next joiner, for messages that quote it. */
export interface FilterTerm {
  field: string;
  op: FilterOperator;
  value: string;
  text: string;
}

export interface FilterSyntaxError {
  error: string;
  text: string;
}

const FIELD = /[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)*/y;
const BARE_VALUE = /[^\s"]+/y;
const SPACES = /\s*/y;

export function* filterTerms(
  filter: string,
  join: FilterJoin,
): Generator<FilterTerm | FilterSyntaxError, void, undefined> {
  const flags = join.anyCase ? 'i' : '';
  const joiner = new RegExp(`${join.keyword}(?=\\s|$)`, `y${flags}`);
  const quoted = quotedTerms(filter, new RegExp(`\\s+${join.keyword}\\s+`, `g${flags}`));
  let at = 0;
  const take = (pattern: RegExp): string => {
    pattern.lastIndex = at;
    const found = pattern.exec(filter)?.[0] ?? '';
    at += found.length;
    return found;
  };
  for (;;) {
    take(SPACES);
    const start = at;
    const fail = (error: string): FilterSyntaxError => ({ error, text: quoted(start) });
    const field = take(FIELD);
    if (!field) {
      yield fail(`expected a field name at position ${at + 1}`);
      return;
    }
    take(SPACES);
    const op = FILTER_OPERATORS.find((candidate) => filter.startsWith(candidate, at));
    if (!op) {
      yield fail(`expected an operator (=, !=, <, <=, >, >=) after ${field}`);
      return;
    }
    at += op.length;
    take(SPACES);
    let value = '';
    if (filter[at] === '"') {
      let closed = false;
      for (at++; at < filter.length; at++) {
        if (filter[at] === '\\' && at + 1 < filter.length) value += filter[++at];
        else if (filter[at] === '"') {
          closed = true;
          at++;
          break;
        } else value += filter[at];
      }
      if (!closed) {
        yield fail(`unterminated quoted value for ${field}`);
        return;
      }
    } else {
      value = take(BARE_VALUE);
      if (!value) {
        yield fail(`expected a value after ${field} ${op}`);
        return;
      }
    }
    yield { field, op, value, text: quoted(start) };
    take(SPACES);
    if (at >= filter.length) return;
    if (!take(joiner)) {
      yield fail(
        `expected ${join.keyword} at position ${at + 1} (terms are joined by ${join.keyword})`,
      );
      return;
    }
  }
}

/** Cut at each spaced joiner, so a term followed by stray words is quoted with them. */
function quotedTerms(filter: string, separator: RegExp): (at: number) => string {
  const terms: { start: number; end: number }[] = [];
  let start = 0;
  for (const { index, 0: joiner } of filter.matchAll(separator)) {
    terms.push({ start, end: index });
    start = index + joiner.length;
  }
  terms.push({ start, end: filter.length });
  return (at) => {
    const term = terms.findLast((candidate) => candidate.start <= at)!;
    return filter.slice(term.start, term.end).trim();
  };
}
