import type { FirewallRule } from '@rollout/contracts';
import type { FieldViolation } from '../api/errors';

interface RulesTableProps {
  rules: FirewallRule[];
  caption: string;
  /** Violations by rule index, shown in the rule's row. */
  violations?: Map<number, FieldViolation[]>;
}

const list = (values?: string[]) => (values?.length ? values.join(', ') : 'any');
const protocols = (rule: FirewallRule) =>
  rule.match.layer4Configs?.length
    ? rule.match.layer4Configs
        .map((l4) => (l4.ports?.length ? `${l4.ipProtocol}:${l4.ports.join(',')}` : l4.ipProtocol))
        .join(', ')
    : 'all';

/** Lowest priority number (the one that wins) first. */
export function RulesTable({ rules, caption, violations }: RulesTableProps) {
  const withIndex = rules
    .map((rule, index) => ({ rule, index }))
    .sort((a, b) => a.rule.priority - b.rule.priority);
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-label={caption}>
      <table class="striped">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Priority</th>
            <th scope="col">Direction</th>
            <th scope="col">Action</th>
            <th scope="col">Sources</th>
            <th scope="col">Destinations</th>
            <th scope="col">Protocols / ports</th>
            <th scope="col">Target tags</th>
            {violations && <th scope="col">Problems</th>}
          </tr>
        </thead>
        <tbody>
          {withIndex.length === 0 && (
            <tr>
              <td colSpan={violations ? 8 : 7}>
                No rules: every connection gets the implied verdict (ingress denied, egress
                allowed).
              </td>
            </tr>
          )}
          {withIndex.map(({ rule, index }) => {
            const problems = violations?.get(index) ?? [];
            return (
              <tr
                key={index}
                class={problems.length ? 'invalid' : undefined}
                data-rule-index={index}
              >
                <td>
                  {rule.priority}
                  {rule.disabled ? ' (disabled)' : ''}
                </td>
                <td>{rule.direction}</td>
                <td class={`action-${rule.action}`}>{rule.action}</td>
                <td>{list(rule.match.srcIpRanges)}</td>
                <td>{list(rule.match.destIpRanges)}</td>
                <td>{protocols(rule)}</td>
                <td>{list(rule.targetTags)}</td>
                {violations && (
                  <td>
                    {problems.map((problem) => (
                      <p key={problem.field} class="error rule-problem">
                        {problem.field.replace(/^.*rules\[\d+\]\.?/, '') || 'rule'}:{' '}
                        {problem.description}
                      </p>
                    ))}
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** Field violations grouped by the rule index their field names; the others under -1. */
export function violationsByRule(violations: FieldViolation[]): Map<number, FieldViolation[]> {
  const byRule = new Map<number, FieldViolation[]>();
  for (const violation of violations) {
    const index = Number(/rules\[(\d+)\]/.exec(violation.field)?.[1] ?? -1);
    byRule.set(index, [...(byRule.get(index) ?? []), violation]);
  }
  return byRule;
}
