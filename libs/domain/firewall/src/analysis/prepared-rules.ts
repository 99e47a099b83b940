/** A policy's rules as the decision diagram reads them: one direction, in evaluation order. */
import type { Direction, FirewallRule, RuleMatch } from '@rollout/contracts';
import { LABEL_FIELDS, LINE_FIELDS } from '../match-fields';
import type { Interval } from './space';
import type { TagCell } from './tags';

export const LINES = LINE_FIELDS.length;
export const DIMENSIONS = LINES + LABEL_FIELDS.length;

export type Keys = Partial<Record<keyof RuleMatch, Interval[]>>;
export type Cells = Partial<Record<keyof RuleMatch, TagCell>>;

export const EVERY_LABEL_SET: TagCell = { absent: [], anyOf: [] };

export interface PreparedRule {
  side: 0 | 1;
  priority: number;
  action: 'allow' | 'deny';
  keys: Keys;
  full: Partial<Record<keyof RuleMatch, boolean>>;
  labels: (readonly string[] | undefined)[];
  tags: readonly string[] | undefined;
  universalFrom: boolean[];
}

export function prepare(
  rules: readonly FirewallRule[],
  side: 0 | 1,
  direction: Direction,
): PreparedRule[] {
  return rules
    .map((rule, order) => ({ rule, order }))
    .filter(({ rule }) => !rule.disabled && rule.direction === direction)
    .sort((a, b) => a.rule.priority - b.rule.priority || a.order - b.order)
    .map(({ rule }) => {
      const keys: Keys = {};
      const full: Partial<Record<keyof RuleMatch, boolean>> = {};
      for (const { name, field } of LINE_FIELDS) {
        const list = field.keys(rule.match?.[name]);
        keys[name] = list;
        full[name] = list.length === 1 && list[0].first === 0n && list[0].last === field.end - 1n;
      }
      const labels = LABEL_FIELDS.map(({ name, field }) => {
        const named = field.labels(rule.match?.[name]);
        return named?.length ? [...new Set(named)].sort() : undefined;
      });
      const tags = rule.targetTags?.length ? rule.targetTags : undefined;
      const universalFrom = Array.from(
        { length: DIMENSIONS + 1 },
        (_, level) =>
          !tags &&
          LINE_FIELDS.slice(level).every(({ name }) => full[name]) &&
          labels.slice(Math.max(0, level - LINES)).every((named) => !named),
      );
      return {
        side,
        priority: rule.priority,
        action: rule.action,
        keys,
        full,
        labels,
        tags,
        universalFrom,
      };
    });
}
