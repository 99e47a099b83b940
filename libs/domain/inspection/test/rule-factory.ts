import type { InspectionRuleStep } from '@rollout/contracts';
import type { RuleDefinition } from '../src/rule';
import { validateRule } from '../src/rule-validation';

let sequence = 0;

/** A valid rule for tests, created one second after the previous one. */
export function rule(
  fields: Partial<RuleDefinition> & { actions: InspectionRuleStep[] },
): RuleDefinition {
  sequence += 1;
  const validated = validateRule(
    {
      actions: fields.actions,
      conditions: fields.conditions ?? [],
      phase: fields.phase ?? 'main',
      sensitive: fields.sensitive ?? false,
      scope: fields.scope ?? null,
      description: fields.description ?? null,
    },
    { builtIn: true },
  );
  return {
    ...validated,
    uuid: fields.uuid ?? `00000000-0000-4000-8000-${String(sequence).padStart(12, '0')}`,
    priority: fields.priority ?? 0,
    created_at: fields.created_at ?? new Date(Date.UTC(2026, 0, 1) + sequence * 1000).toISOString(),
    updated_at: null,
    built_in: fields.built_in ?? false,
  };
}
