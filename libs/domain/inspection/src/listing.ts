import {
  INSPECTION_RULE_SORT_KEYS,
  InspectionRuleSortKey,
  ListInspectionRulesRequest,
  StatusError,
} from '@rollout/contracts';
import type { RuleDefinition } from './rule';

/** Ironic's `[api] max_limit`. */
export const MAX_LIST_LIMIT = 1000;

type Sortable = string | number | boolean | null;

function compareValues(a: Sortable, b: Sortable): number {
  // Nulls first in ascending order, as Ironic's default MySQL backend sorts them.
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

/** As Ironic: ties keep creation order, and a marker naming no listed rule is NOT_FOUND. */
export function pageRules(
  rules: readonly RuleDefinition[],
  request: Pick<ListInspectionRulesRequest, 'limit' | 'marker' | 'sort_key' | 'sort_dir'>,
): RuleDefinition[] {
  checkPaging(request);
  const key: InspectionRuleSortKey = request.sort_key ?? 'id';
  const direction = request.sort_dir === 'desc' ? -1 : 1;
  const sorted = rules
    .map((rule, index) => ({ rule, index }))
    .sort((a, b) => {
      const order = key === 'id' ? 0 : compareValues(a.rule[key], b.rule[key]);
      return direction * (order || a.index - b.index);
    })
    .map(({ rule }) => rule);
  let start = 0;
  if (request.marker !== undefined) {
    const marker = request.marker.toLowerCase();
    const position = sorted.findIndex((rule) => rule.uuid === marker);
    if (position < 0)
      throw StatusError.withReason(
        'NOT_FOUND',
        `Rule ${request.marker} could not be found.`,
        'RULE_NOT_FOUND',
        { uuid: request.marker },
      );
    start = position + 1;
  }
  const limit = request.limit === undefined ? sorted.length : request.limit;
  return sorted.slice(start, start + limit);
}

/** With Ironic's messages. */
function checkPaging(
  request: Pick<ListInspectionRulesRequest, 'limit' | 'marker' | 'sort_key' | 'sort_dir'>,
): void {
  const refuse = (field: string, message: string) => {
    throw StatusError.invalidArgument(message, [{ field, description: message }]);
  };
  const { limit, sort_key: key, sort_dir: direction, marker } = request;
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit)))
    refuse('limit', 'Limit must be an integer');
  if (limit !== undefined && limit <= 0) refuse('limit', 'Limit must be positive');
  if (limit !== undefined && limit > MAX_LIST_LIMIT)
    refuse('limit', `Limit must be at most ${MAX_LIST_LIMIT}`);
  if (key !== undefined && !(INSPECTION_RULE_SORT_KEYS as readonly unknown[]).includes(key)) {
    refuse('sort_key', `The sort_key value ${String(key)} is an invalid field for sorting`);
  }
  if (direction !== undefined && direction !== 'asc' && direction !== 'desc') {
    refuse(
      'sort_dir',
      `Invalid sort direction: ${String(direction)}. Acceptable values are 'asc' or 'desc'`,
    );
  }
  if (marker !== undefined && typeof marker !== 'string')
    refuse('marker', 'marker must be a rule uuid');
}
