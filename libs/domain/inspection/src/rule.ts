import type { InspectionRule, InspectionRuleStep } from '@rollout/contracts';
import { isPlainObject } from './values';

/** Never masked here. */
export interface RuleDefinition extends Omit<InspectionRule, 'conditions' | 'actions'> {
  conditions: InspectionRuleStep[];
  actions: InspectionRuleStep[];
}

export type RuleFields = Omit<RuleDefinition, 'created_at' | 'updated_at' | 'built_in' | 'uuid'> & {
  uuid?: string;
};

export const USER_PRIORITY = { min: 0, max: 9999 } as const;
export const MAX_STEPS = 100;
export const MAX_LOOP_ITEMS = 1000;
export const MAX_TEXT = 255;

/** Ties keep the given order. */
export function orderRules<T extends Pick<RuleDefinition, 'priority' | 'created_at'>>(
  rules: readonly T[],
): T[] {
  return rules
    .map((rule, index) => ({ rule, index, created: Date.parse(rule.created_at) }))
    .sort((a, b) => b.rule.priority - a.rule.priority || a.created - b.created || a.index - b.index)
    .map(({ rule }) => rule);
}

/** As Ironic echoes it: `loop` only when non-empty, `multiple` only on a looping condition. */
function echoedStep(step: InspectionRuleStep, isCondition: boolean): InspectionRuleStep {
  const echoed: InspectionRuleStep = { op: step.op, args: step.args ?? [] };
  const loops = Array.isArray(step.loop)
    ? step.loop.length > 0
    : isPlainObject(step.loop)
      ? Object.keys(step.loop).length > 0
      : Boolean(step.loop);
  if (loops) {
    echoed.loop = step.loop;
    if (isCondition) echoed.multiple = step.multiple ?? 'any';
  }
  return echoed;
}

export function publicRule(rule: RuleDefinition, detail = true): InspectionRule {
  const { conditions, actions, ...summary } = rule;
  if (!detail) return summary;
  return {
    ...summary,
    conditions: rule.sensitive ? null : conditions.map((step) => echoedStep(step, true)),
    actions: rule.sensitive ? null : actions.map((step) => echoedStep(step, false)),
  };
}
