import { StatusError } from '@rollout/contracts';
import type { RuleDefinition } from '@rollout/domain/inspection';

export const BUILT_IN_RULES = Symbol('BUILT_IN_RULES');

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function notFound(uuid: string): StatusError {
  // Ironic's words, which its clients show as they are.
  return StatusError.withReason('NOT_FOUND', `Rule ${uuid} could not be found.`, 'RULE_NOT_FOUND', {
    uuid,
  });
}

export function builtInRule(builtIns: RuleDefinition[], uuid: string): RuleDefinition | undefined {
  return builtIns.find((rule) => rule.uuid === uuid.toLowerCase());
}

/** The key a stored rule has; anything not shaped as a uuid names no rule. */
export function storedRuleKey(uuid: string): string {
  if (!UUID_SHAPE.test(uuid)) throw notFound(uuid);
  return uuid.toLowerCase();
}
