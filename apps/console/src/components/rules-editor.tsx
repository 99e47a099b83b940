import type { FirewallRule } from '@rollout/contracts';
import { useMemo } from 'preact/hooks';
import type { FieldViolation } from '../api/errors';
import { RulesTable, violationsByRule } from './rules-table';

interface RulesEditorProps {
  text: string;
  onText: (text: string) => void;
  /** The API's complaints about the rules last sent, shown in the row of the rule they concern. */
  violations: FieldViolation[];
}

/** The rules as JSON, parsed on every keystroke: null when the text is not a JSON list. */
export function parseRules(text: string): FirewallRule[] | null {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? (value as FirewallRule[]) : null;
  } catch {
    return null;
  }
}

export function RulesEditor({ text, onText, violations }: RulesEditorProps) {
  const rules = useMemo(() => parseRules(text), [text]);
  const byRule = useMemo(() => violationsByRule(violations), [violations]);
  const general = byRule.get(-1) ?? [];
  // A rule that does not have the shape of one cannot be drawn as a row.
  const drawable = rules?.every(
    (rule) =>
      typeof rule === 'object' &&
      rule !== null &&
      typeof rule.match === 'object' &&
      rule.match !== null,
  );
  return (
    <div class="rules-editor">
      <label for="rules-json">
        Rules (JSON: a list of rules with priority, direction, action and match)
      </label>
      <textarea
        id="rules-json"
        name="rules"
        rows={12}
        spellcheck={false}
        value={text}
        onInput={(event) => onText(event.currentTarget.value)}
        aria-invalid={rules === null || violations.length > 0 ? 'true' : undefined}
        aria-describedby="rules-json-problem"
      />
      <div id="rules-json-problem">
        {rules === null && <p class="error">This is not a JSON list of rules yet.</p>}
        {general.map((violation) => (
          <p key={violation.field} class="error">
            {violation.field}: {violation.description}
          </p>
        ))}
      </div>
      {rules && drawable && (
        <RulesTable
          rules={rules}
          caption="The experiment's rules, as they will be sent"
          violations={byRule}
        />
      )}
    </div>
  );
}
