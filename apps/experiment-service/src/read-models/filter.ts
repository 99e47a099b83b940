import { filterTerms, StatusError } from '@rollout/contracts';

export interface StateCondition {
  op: '=' | '!=';
  state: string;
}

const STATE_FIELDS = new Set(['previewMetadata.state', 'preview_metadata.state']);
const STATES = new Set(['STATE_UNDEFINED', 'ACTIVE', 'SUSPENDED']);

/** The AIP-160 subset experiments can be listed by: `previewMetadata.state (=|!=) STATE [AND …]`. */
export function parseExperimentFilter(filter: string | undefined): StateCondition[] {
  if (!filter || !filter.trim()) return [];
  if (filter.length > 512) throw bad('is too long');
  const conditions: StateCondition[] = [];
  for (const term of filterTerms(filter, { keyword: 'AND' })) {
    const cannotRead = bad(`cannot read "${term.text.slice(0, 80)}"`);
    if ('error' in term) throw cannotRead;
    const { field, op, value } = term;
    if (!STATE_FIELDS.has(field) || (op !== '=' && op !== '!=') || !/^[A-Z_]+$/.test(value))
      throw cannotRead;
    if (!STATES.has(value)) throw bad(`unknown state ${value.slice(0, 40)}`);
    conditions.push({ op, state: value });
  }
  return conditions;
}

function bad(why: string): StatusError {
  return StatusError.invalidArgument(`filter ${why}.`, [
    {
      field: 'filter',
      description:
        'supported: previewMetadata.state = ACTIVE | SUSPENDED | STATE_UNDEFINED, with != and AND',
    },
  ]);
}
