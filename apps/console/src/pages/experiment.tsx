import type { FirewallPolicy, FirewallPolicyExperiment, PreviewReport } from '@rollout/contracts';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ExperimentRef, PolicyRef } from '../api/client';
import { ApiError, type FieldViolation, messageOf } from '../api/errors';
import { RulesEditor, parseRules } from '../components/rules-editor';
import { ErrorMessage, Notice, formatCount, formatTime } from '../components/status';
import { useSession } from '../context';
import { commitGates, currentConfiguration } from '../report/gates';
import { routeHref } from '../router';
import { PREVIEW_STATE_LABEL, previewStateOf } from './policy';

const rulesText = (value: unknown) => JSON.stringify(value, null, 2);
const violationsOf = (error: unknown): FieldViolation[] =>
  error instanceof ApiError ? error.fieldViolations : [];

function Breadcrumb({ policyRef, last }: { policyRef: PolicyRef; last: string }) {
  return (
    <nav aria-label="Breadcrumb">
      <ul>
        <li>
          <a
            href={routeHref({
              page: 'policies',
              project: policyRef.project,
              location: policyRef.location,
            })}
          >
            {policyRef.project}
          </a>
        </li>
        <li>
          <a href={routeHref({ page: 'policy', ...policyRef })}>{policyRef.policy}</a>
        </li>
        <li>{last}</li>
      </ul>
    </nav>
  );
}

/** A new experiment, starting from the live policy's rules. */
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

/** An experiment: edit its rules, preview it, delete it, or commit it behind a confirmation. */
export function ExperimentPage({ experimentRef }: { experimentRef: ExperimentRef }) {
  const { api, canEdit } = useSession();
  const [experiment, setExperiment] = useState<FirewallPolicyExperiment>();
  const [text, setText] = useState('');
  const [violations, setViolations] = useState<FieldViolation[]>([]);
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [committing, setCommitting] = useState(false);

  const show = (found: FirewallPolicyExperiment) => {
    setExperiment(found);
    setText(rulesText(found.firewallPolicy.rules));
    setViolations([]);
  };
  useEffect(() => {
    api.getExperiment(experimentRef).then(show, (caught: unknown) => setError(messageOf(caught)));
  }, [api, experimentRef]);

  const run = async (
    done: string,
    action: () => Promise<{ response?: FirewallPolicyExperiment } | void>,
  ) => {
    setBusy(true);
    setError(undefined);
    setNotice(undefined);
    try {
      const operation = await action();
      if (operation && operation.response) show(operation.response);
      setNotice(done);
    } catch (caught) {
      setError(messageOf(caught));
      setViolations(violationsOf(caught));
    } finally {
      setBusy(false);
    }
  };

  const save = () => {
    const rules = parseRules(text);
    if (!rules || !experiment) return setError('The rules are not a JSON list: fix them first.');
    void run(
      'Saved. A preview that was running is now stopped: start it again to evaluate the new rules.',
      () => api.updateExperiment(experimentRef, rules, experiment.etag),
    );
  };
  const remove = () => {
    if (!experiment) return;
    void run('Deleted.', async () => {
      await api.deleteExperiment(experimentRef, experiment.etag);
      window.location.hash = routeHref({ page: 'policy', ...experimentRef });
    });
  };

  if (!experiment) {
    return (
      <>
        <Breadcrumb policyRef={experimentRef} last={experimentRef.experiment} />
        <h1>Experiment {experimentRef.experiment}</h1>
        <ErrorMessage message={error} />
      </>
    );
  }
  const state = previewStateOf(experiment);
  const edited = text !== rulesText(experiment.firewallPolicy.rules);
  return (
    <>
      <Breadcrumb policyRef={experimentRef} last={experimentRef.experiment} />
      <h1>Experiment {experimentRef.experiment}</h1>
      <p>
        Preview{' '}
        <strong class={`state state-${state.toLowerCase()}`}>
          {PREVIEW_STATE_LABEL[state] ?? state}
        </strong>
        {experiment.previewMetadata?.startTime
          ? `, started ${formatTime(experiment.previewMetadata.startTime)}`
          : ''}
        {experiment.previewMetadata?.stopTime
          ? `, stopped ${formatTime(experiment.previewMetadata.stopTime)}`
          : ''}
        . Version <code>{experiment.etag}</code>.{' '}
        {state !== 'STATE_UNDEFINED' && (
          <a href={routeHref({ page: 'report', ...experimentRef })}>Preview report</a>
        )}
      </p>
      {canEdit && (
        <div class="actions" role="group" aria-label="Preview">
          {state === 'ACTIVE' ? (
            <button
              type="button"
              class="secondary"
              disabled={busy}
              onClick={() => void run('Preview stopped.', () => api.stopPreview(experimentRef))}
            >
              Stop preview
            </button>
          ) : (
            <button
              type="button"
              disabled={busy || edited}
              onClick={() => void run('Preview started.', () => api.startPreview(experimentRef))}
            >
              Start preview
            </button>
          )}
          <button
            type="button"
            class="contrast"
            disabled={busy || edited}
            onClick={() => setCommitting(true)}
          >
            Commit…
          </button>
          <button type="button" class="secondary outline" disabled={busy} onClick={remove}>
            Delete
          </button>
        </div>
      )}
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage message={error} />
      <RulesEditor text={text} onText={setText} violations={violations} />
      {canEdit && (
        <button type="button" disabled={busy || !edited} onClick={save}>
          Save rules
        </button>
      )}
      {committing && (
        <CommitDialog
          experimentRef={experimentRef}
          experiment={experiment}
          onClose={() => setCommitting(false)}
        />
      )}
    </>
  );
}

/**
 * The confirmation before a commit: the gates and the numbers of the report the operator is
 * committing on, and the two etags the commit is bound to (a change meanwhile makes it fail).
 */
function CommitDialog({
  experimentRef,
  experiment,
  onClose,
}: {
  experimentRef: ExperimentRef;
  experiment: FirewallPolicyExperiment;
  onClose: () => void;
}) {
  const { api } = useSession();
  const dialog = useRef<HTMLDialogElement>(null);
  const [livePolicy, setLivePolicy] = useState<FirewallPolicy>();
  const [report, setReport] = useState<PreviewReport>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    dialog.current?.showModal();
    Promise.all([
      api.getPolicy(experimentRef),
      api.previewReport(experimentRef).catch(() => undefined),
    ]).then(
      ([policy, found]) => {
        setLivePolicy(policy);
        setReport(found);
      },
      (caught: unknown) => setError(messageOf(caught)),
    );
  }, [api, experimentRef]);

  const commit = async () => {
    if (!livePolicy) return;
    setBusy(true);
    setError(undefined);
    try {
      await api.commit(experimentRef, experiment.etag, livePolicy.etag);
      dialog.current?.close();
      window.location.hash = routeHref({ page: 'policy', ...experimentRef });
    } catch (caught) {
      setError(messageOf(caught));
      setBusy(false);
    }
  };

  const configuration = livePolicy && currentConfiguration(report, experiment, livePolicy);
  const gates = livePolicy ? commitGates(report, experiment, livePolicy) : [];
  return (
    <dialog ref={dialog} onClose={onClose} aria-labelledby="commit-title">
      <article>
        <h2 id="commit-title">Commit {experimentRef.experiment}?</h2>
        <p>
          Its rules become the live rules of {experimentRef.policy} and the experiment is removed.
          The commit is bound to experiment version <code>{experiment.etag}</code>
          {livePolicy && (
            <>
              {' '}
              and live version <code>{livePolicy.etag}</code>
            </>
          )}
          : if either changes meanwhile, nothing is committed.
        </p>
        {livePolicy && (
          <>
            <h3>Gates</h3>
            <ul class="gates">
              {gates.map((gate) => (
                <li key={gate.id} class={gate.passed ? 'gate-passed' : 'gate-failed'}>
                  <span aria-hidden="true">{gate.passed ? '✓' : '✗'}</span>{' '}
                  <span class="visually-hidden">{gate.passed ? 'Passed:' : 'Not passed:'}</span>{' '}
                  {gate.text}
                </li>
              ))}
            </ul>
            <h3>The report you commit on</h3>
            {configuration ? (
              <table class="commit-report">
                <tbody>
                  <tr>
                    <th scope="row">Evaluated</th>
                    <td data-metric="evaluated">{formatCount(configuration.evaluated)}</td>
                  </tr>
                  <tr>
                    <th scope="row">Allow → deny</th>
                    <td data-metric="allowToDeny">{formatCount(configuration.allowToDeny)}</td>
                  </tr>
                  <tr>
                    <th scope="row">Deny → allow</th>
                    <td data-metric="denyToAllow">{formatCount(configuration.denyToAllow)}</td>
                  </tr>
                  <tr>
                    <th scope="row">Unchanged</th>
                    <td>
                      {formatCount(configuration.unchangedAllow + configuration.unchangedDeny)}
                    </td>
                  </tr>
                </tbody>
              </table>
            ) : (
              <p>The report has no numbers for these two versions.</p>
            )}
          </>
        )}
        <ErrorMessage message={error} />
        <footer>
          <button type="button" class="secondary" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button
            type="button"
            class="contrast"
            aria-busy={busy}
            disabled={busy || !livePolicy}
            onClick={() => void commit()}
          >
            Commit
          </button>
        </footer>
      </article>
    </dialog>
  );
}
