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

/** A stored sensitive rule (it sets a BMC password), as the service reads it back. */
export const STORED_SENSITIVE_RULE: RuleDefinition = {
  uuid: '7d7b2c0e-0000-4000-8000-000000000001',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: null,
  priority: 1,
  description: 'bmc',
  scope: null,
  sensitive: true,
  phase: 'main',
  conditions: [{ op: 'is-true', args: ['{node.auto_discovered}'] }],
  actions: [{ op: 'set-attribute', args: ['/driver_info/ipmi_password', 'x'] }],
  built_in: false,
};
