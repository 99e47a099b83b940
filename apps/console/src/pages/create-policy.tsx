import type { FirewallRule } from '@rollout/contracts';
import { useState } from 'preact/hooks';
import { ApiError, messageOf } from '../api/errors';
import { ErrorMessage } from '../components/status';
import { useSession } from '../context';

export function CreatePolicy({
  project,
  location,
  onCreated,
}: {
  project: string;
  location: string;
  onCreated: () => void;
}) {
  const { api } = useSession();
  const [id, setId] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [rulesText, setRulesText] = useState('[]');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const create = async (event: Event) => {
    event.preventDefault();
    let rules: FirewallRule[];
    try {
      rules = JSON.parse(rulesText) as FirewallRule[];
    } catch {
      return setError('The rules are not valid JSON: write a list of rules, [] for none.');
    }
    setBusy(true);
    setError(undefined);
    try {
      await api.createPolicy(project, location, id.trim(), {
        displayName: displayName.trim() || undefined,
        rules,
      });
      setId('');
      setDisplayName('');
      setRulesText('[]');
      onCreated();
    } catch (caught) {
      const violations =
        caught instanceof ApiError
          ? caught.fieldViolations.map((v) => `${v.field}: ${v.description}`)
          : [];
      setError([messageOf(caught), ...violations].join(' '));
    } finally {
      setBusy(false);
    }
  };

  return (
    <details>
      <summary role="button" class="secondary outline">
        Create a live policy
      </summary>
      <form onSubmit={create} aria-label="Create a live policy">
        <label>
          Policy id
          <input
            name="policyId"
            required
            pattern="[a-z]([a-z0-9\-]{0,61}[a-z0-9])?"
            value={id}
            onInput={(event) => setId(event.currentTarget.value)}
          />
          <small>Lower-case letters, digits and dashes, starting with a letter.</small>
        </label>
        <label>
          Display name
          <input
            name="displayName"
            value={displayName}
            onInput={(event) => setDisplayName(event.currentTarget.value)}
          />
        </label>
        <label>
          Rules (JSON)
          <textarea
            name="rules"
            rows={6}
            spellcheck={false}
            value={rulesText}
            onInput={(event) => setRulesText(event.currentTarget.value)}
          />
        </label>
        <ErrorMessage message={error} />
        <button type="submit" aria-busy={busy} disabled={busy}>
          Create policy
        </button>
      </form>
    </details>
  );
}
