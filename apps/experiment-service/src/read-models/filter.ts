import { StatusError } from '@rollout/contracts';

export interface StateCondition {
  op: '=' | '!=';
  state: string;
}

const STATES = new Set(['STATE_UNDEFINED', 'ACTIVE', 'SUSPENDED']);
const CONDITION =
  /^\s*(previewMetadata\.state|preview_metadata\.state)\s*(=|!=)\s*"?([A-Z_]+)"?\s*$/;

/** The AIP-160 subset experiments can be listed by: `previewMetadata.state (=|!=) STATE [AND …]`. */
export function parseExperimentFilter(filter: string | undefined): StateCondition[] {
  if (!filter || !filter.trim()) return [];
  if (filter.length > 512) throw bad('is too long');
  return filter.split(/\s+AND\s+/).map((part) => {
    const m = CONDITION.exec(part);
    if (!m) throw bad(`cannot read "${part.trim().slice(0, 80)}"`);
    if (!STATES.has(m[3])) throw bad(`unknown state ${m[3].slice(0, 40)}`);
    return { op: m[2] as '=' | '!=', state: m[3] };
  });
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
