import { RuleError } from './errors';
import { applyJsonPatch } from './json-pointer';
import type { RuleDefinition, RuleFields } from './rule';
import { READ_ONLY, Violation, invalid, validateRule } from './rule-validation';
import { isPlainObject } from './values';

const HIDDEN = /^\/(conditions|actions)(\/|$)/;

/**
 * As Ironic's PATCH, then the create's validation. A sensitive rule's steps cannot be read
 * through a patch (`test`, or `copy`/`move` from them), and problems omit their content.
 */
export function patchRule(before: RuleDefinition, patch: unknown): RuleFields {
  const hide = before.sensitive;
  if (hide && Array.isArray(patch)) {
    for (const op of patch) {
      const reads =
        isPlainObject(op) &&
        (op.op === 'test' ? op.path : op.op === 'copy' || op.op === 'move' ? op.from : undefined);
      if (typeof reads === 'string' && HIDDEN.test(reads)) {
        throw invalid('Invalid patch', [
          {
            field: 'patch',
            description: `a sensitive rule's conditions and actions cannot be read (${String(op.op)} ${reads})`,
          },
        ]);
      }
    }
  }
  let after: Record<string, unknown>;
  try {
    // The read-only fields included: changing them is refused below.
    after = applyJsonPatch({ ...before }, patch);
  } catch (error) {
    if (!(error instanceof RuleError)) throw error;
    // The messages name paths of the rule: not for sensitive rules.
    throw invalid('Invalid patch', [
      { field: 'patch', description: hide ? 'does not apply to this rule' : error.message },
    ]);
  }
  const violations: Violation[] = [];
  for (const field of [...READ_ONLY, 'uuid'] as const) {
    if (JSON.stringify(after[field]) !== JSON.stringify(before[field as keyof RuleDefinition])) {
      violations.push({ field, description: `${field} cannot be changed` });
    }
  }
  if (before.sensitive && after.sensitive !== true) {
    violations.push({
      field: 'sensitive',
      description: 'a sensitive rule cannot be made non-sensitive',
    });
  }
  if (violations.length) throw invalid('Invalid patch', violations);
  const editable: Record<string, unknown> = {};
  for (const key of Object.keys(after))
    if (!READ_ONLY.includes(key) && key !== 'uuid') editable[key] = after[key];
  return validateRule(editable, { defaultScope: null, hideSteps: hide });
}
