import type { FirewallPolicyExperiment } from '@rollout/contracts';
import { useEffect, useState } from 'preact/hooks';
import type { ExperimentRef } from '../api/client';
import { type FieldViolation, messageOf } from '../api/errors';
import { Breadcrumb } from '../components/breadcrumb';
import { RulesEditor, parseRules } from '../components/rules-editor';
import { ErrorMessage, Notice, formatTime } from '../components/status';
import { useSession } from '../context';
import { routeHref } from '../router';
import { CommitDialog } from './commit-dialog';
import { rulesText, violationsOf } from './experiment-form';
import { PREVIEW_STATE_LABEL, previewStateOf } from './policy';

export function ExperimentPage({ experimentRef }: { experimentRef: ExperimentRef }) {
  const { api, canEdit, principal } = useSession();
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
  const proposal =
    experiment.commitProposal?.experimentEtag === experiment.etag
      ? experiment.commitProposal
      : undefined;
  const canApprove = proposal !== undefined && proposal.proposer !== principal.name;
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
        . Etag <code>{experiment.etag}</code>.{' '}
        {/* The report answers before any preview: the diff, the analysis and the backtest. */}
        <a href={routeHref({ page: 'report', ...experimentRef })}>
          {state === 'STATE_UNDEFINED' ? 'What it changes, and backtest' : 'Preview report'}
        </a>
      </p>
      {proposal && (
        <p class="proposal" data-metric="commitProposal">
          Commit proposed by <strong>{proposal.proposer}</strong>
          {proposal.reason ? <>: “{proposal.reason}”</> : ''}; it waits for{' '}
          {proposal.proposer === principal.name ? 'another editor’s' : 'your'} approval.
        </p>
      )}
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
            {canApprove ? 'Approve…' : 'Commit…'}
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
          onProposed={setExperiment}
        />
      )}
    </>
  );
}
