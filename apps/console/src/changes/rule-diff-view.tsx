import type { FirewallRule } from '@rollout/contracts';
import type { RuleDiff } from '@rollout/contracts';
import { describeRule, formatFieldValue } from './rule-words';

type Row =
  | { kind: 'added' | 'removed'; priority: number; rule: FirewallRule }
  | { kind: 'changed'; priority: number; change: RuleDiff['changed'][number] };

const SIGN = { added: '+', removed: '−', changed: '~' };

/** Added, removed and changed rules in one list, by priority (the order they are matched in). */
const rowsOf = (diff: RuleDiff): Row[] =>
  [
    ...diff.added.map((rule): Row => ({ kind: 'added', priority: rule.priority, rule })),
    ...diff.removed.map((rule): Row => ({ kind: 'removed', priority: rule.priority, rule })),
    ...diff.changed.map((change): Row => ({ kind: 'changed', priority: change.priority, change })),
  ].sort((a, b) => a.priority - b.priority || a.kind.localeCompare(b.kind));

/** What the change does to traffic, in words: regions now denied, regions now allowed. */
export function SemanticSummary({ semantic }: { semantic: RuleDiff['semantic'] }) {
  const items = [
    ...semantic.nowDenied.map((s) => ({ ...s, kind: 'denied' })),
    ...semantic.nowAllowed.map((s) => ({ ...s, kind: 'allowed' })),
  ];
  if (!items.length) return <p>No traffic changes verdict: the rules differ only in form.</p>;
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

/** A rule diff: added rules green, removed red, changed ones field by field, then in words. */
export function RuleDiffView({ diff, caption }: { diff: RuleDiff; caption?: string }) {
  const rows = rowsOf(diff);
  return (
    <div class="rule-diff">
      <p>
        From <strong>{diff.from.label}</strong> to <strong>{diff.to.label}</strong>:{' '}
        <span data-metric="diffAdded">{diff.added.length}</span> added,{' '}
        <span data-metric="diffRemoved">{diff.removed.length}</span> removed,{' '}
        <span data-metric="diffChanged">{diff.changed.length}</span> changed, {diff.unchangedCount}{' '}
        unchanged.
      </p>
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
                    {row.kind}
                  </td>
                  <td>{row.priority}</td>
                  <td>
                    {row.kind === 'changed' ? (
                      <ul class="fields">
                        {row.change.fields.map((field) => (
                          <li key={field.field}>
                            {field.field}: <del>{formatFieldValue(field.before)}</del> →{' '}
                            <ins>{formatFieldValue(field.after)}</ins>
                          </li>
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
      <SemanticSummary semantic={diff.semantic} />
    </div>
  );
}
