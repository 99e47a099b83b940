import { useEffect, useState } from 'preact/hooks';
import type { PolicyRef } from '../api/client';
import { type FieldViolation, messageOf } from '../api/errors';
import { Breadcrumb } from '../components/breadcrumb';
import { RulesEditor, parseRules } from '../components/rules-editor';
import { ErrorMessage } from '../components/status';
import { useSession } from '../context';
import { routeHref } from '../router';
import { rulesText, violationsOf } from './experiment-form';

export function NewExperimentPage({ policyRef }: { policyRef: PolicyRef }) {
  const { api } = useSession();
  const [id, setId] = useState('');
  const [text, setText] = useState<string>();
  const [violations, setViolations] = useState<FieldViolation[]>([]);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api.getPolicy(policyRef).then(
      (policy) => setText(rulesText(policy.rules)),
      (caught: unknown) => setError(messageOf(caught)),
    );
  }, [api, policyRef]);

  const create = async (event: Event) => {
    event.preventDefault();
    const rules = parseRules(text ?? '');
    if (!rules) return setError('The rules are not a JSON list: fix them first.');
    setBusy(true);
    setError(undefined);
    try {
      await api.createExperiment(policyRef, id.trim(), rules);
      window.location.hash = routeHref({ page: 'experiment', ...policyRef, experiment: id.trim() });
    } catch (caught) {
      setError(messageOf(caught));
      setViolations(violationsOf(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Breadcrumb policyRef={policyRef} last="New experiment" />
      <h1>New experiment of {policyRef.policy}</h1>
      {text === undefined ? (
        <ErrorMessage message={error} />
      ) : (
        <form onSubmit={create} aria-label="New experiment">
          <label>
            Experiment id
            <input
              name="experimentId"
              required
              value={id}
              onInput={(event) => setId(event.currentTarget.value)}
            />
            <small>Lower-case letters, digits and dashes, starting with a letter.</small>
          </label>
          <RulesEditor text={text} onText={setText} violations={violations} />
          <ErrorMessage message={error} />
          <button type="submit" aria-busy={busy} disabled={busy}>
            Create experiment
          </button>
        </form>
      )}
    </>
  );
}
