import type { FirewallRule, RuleDiff, RuleFieldChange } from '@rollout/contracts';
import { Fragment } from 'preact';
import { describeRule, diffCountsText, formatFieldValue } from './rule-words';

type Row =
  | { kind: 'added' | 'removed' | 'rewritten'; priority: number; rule: FirewallRule }
  | { kind: 'changed'; priority: number; change: RuleDiff['changed'][number] };

const SIGN = { added: '+', removed: '−', changed: '~', rewritten: '=' };
const WORD = {
  added: 'added',
  removed: 'removed',
  changed: 'changed',
  rewritten: 'unchanged (rewritten)',
};

/** A rewritten rule means what it meant, so it is listed to explain the new wording, never as a change. */
const rowsOf = (diff: RuleDiff): Row[] =>
  [
    ...diff.added.map((rule): Row => ({ kind: 'added', priority: rule.priority, rule })),
    ...diff.removed.map((rule): Row => ({ kind: 'removed', priority: rule.priority, rule })),
    ...diff.changed.map((change): Row => ({ kind: 'changed', priority: change.priority, change })),
    ...(diff.rewritten ?? []).map((rewritten): Row => ({
      kind: 'rewritten',
      priority: rewritten.priority,
      rule: rewritten.after,
    })),
  ].sort((a, b) => a.priority - b.priority || a.kind.localeCompare(b.kind));

/** A list field element by element, so a reviewer reads what moved rather than two whole lists. */
export function FieldChange({ change }: { change: RuleFieldChange }) {
  if (change.removedElements || change.addedElements) {
    const removed = change.removedElements ?? [];
    const added = change.addedElements ?? [];
    return (
      <li data-field={change.field}>
        {change.field}:{' '}
        {removed.map((element) => (
          <Fragment key={`-${element}`}>
            <del>
              <span aria-hidden="true">− </span>
              <span class="visually-hidden">removed </span>
              {element}
            </del>{' '}
          </Fragment>
        ))}
        {added.map((element) => (
          <Fragment key={`+${element}`}>
            <ins>
              <span aria-hidden="true">+ </span>
              <span class="visually-hidden">added </span>
              {element}
            </ins>{' '}
          </Fragment>
        ))}
      </li>
    );
  }
  return (
    <li data-field={change.field}>
      {change.field}: <del>{formatFieldValue(change.before)}</del> →{' '}
      <ins>{formatFieldValue(change.after)}</ins>
    </li>
  );
}

export function SemanticSummary({
  semantic,
  rulesChange = true,
}: {
  semantic: RuleDiff['semantic'];
  /** False when no rule is added, removed or changed: then nothing can change verdict. */
  rulesChange?: boolean;
}) {
  const items = [
    ...semantic.nowDenied.map((s) => ({ ...s, kind: 'denied' })),
    ...semantic.nowAllowed.map((s) => ({ ...s, kind: 'allowed' })),
  ];
  if (!items.length)
    return (
      <p>
        {rulesChange
          ? 'No traffic changes verdict: the rules differ only in form.'
          : 'No traffic changes verdict.'}
      </p>
    );
  return (
    <ul class="semantic">
      {items.map((item) => (
        <li key={`${item.kind}:${item.summary}`} class={`diff-${item.kind}`}>
          <strong>Now {item.kind}:</strong> {item.summary}
        </li>
      ))}
      {semantic.truncated && <li class="muted">…and more regions, not listed.</li>}
    </ul>
  );
}

/** `semantic` false: the caller shows the words itself. */
export function RuleDiffView({
  diff,
  caption,
  semantic = true,
}: {
  diff: RuleDiff;
  caption?: string;
  semantic?: boolean;
}) {
  const rows = rowsOf(diff);
  const policyFields = diff.policyFields ?? [];
  const rulesChange = diff.added.length + diff.removed.length + diff.changed.length > 0;
  return (
    <div class="rule-diff">
      <p data-metric="diffCounts">
        From <strong>{diff.from.label}</strong> to <strong>{diff.to.label}</strong>:{' '}
        {diffCountsText(diff)}.
      </p>
      {policyFields.length > 0 && (
        <div class="diff policy-fields" data-diff="policyFields">
          <p>The policy’s own fields:</p>
          <ul class="fields">
            {policyFields.map((change) => (
              <FieldChange key={change.field} change={change} />
            ))}
          </ul>
        </div>
      )}
      {rows.length > 0 && (
        <div class="table-scroll" tabIndex={0} role="region" aria-label={caption ?? 'Rule diff'}>
          <table class="diff">
            <thead>
              <tr>
                <th scope="col">Change</th>
                <th scope="col">Priority</th>
                <th scope="col">Rule</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={`${row.kind}:${row.priority}`} class={`diff-${row.kind}`}>
                  <td>
                    <span aria-hidden="true">{SIGN[row.kind]} </span>
                    {WORD[row.kind]}
                  </td>
                  <td>{row.priority}</td>
                  <td>
                    {row.kind === 'changed' ? (
                      <ul class="fields">
                        {row.change.fields.map((field) => (
                          <FieldChange key={field.field} change={field} />
                        ))}
                      </ul>
                    ) : (
                      describeRule(row.rule)
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {semantic && <SemanticSummary semantic={diff.semantic} rulesChange={rulesChange} />}
    </div>
  );
}
