import type { FirewallPolicy, FirewallPolicyExperiment, PreviewReport } from '@rollout/contracts';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ExperimentRef } from '../api/client';
import { messageOf } from '../api/errors';
import { experimentDiff } from '../api/change-api';
import { LoadedView } from '../changes/loaded-view';
import { RuleDiffView } from '../changes/rule-diff-view';
import { useLoaded } from '../changes/use-loaded';
import { ErrorMessage, formatCount } from '../components/status';
import { useSession } from '../context';
import { commitGates, currentConfiguration } from '../report/gates';
import { routeHref } from '../router';

/**
 * The confirmation before a commit: the gates and the numbers of the report the operator is
 * committing on, and the two etags the commit is bound to (a change meanwhile makes it fail).
 */
export function CommitDialog({
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
  const diff = useLoaded(() => experimentDiff(api, experimentRef), [api, experimentRef]);

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
      await api.commit(experimentRef, experiment.etag, livePolicy.etag, report?.reportEtag);
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
        <h3>What changes</h3>
        <LoadedView loaded={diff}>
          {(value) => <RuleDiffView diff={value} caption="Rules the commit changes" />}
        </LoadedView>
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
              {report?.readiness?.gates.map((status) => (
                <li
                  key={`readiness:${status.kind}`}
                  class={status.holds ? 'gate-passed' : 'gate-failed'}
                  data-gate="readiness"
                >
                  <span aria-hidden="true">{status.holds ? '✓' : '✗'}</span>{' '}
                  <span class="visually-hidden">{status.holds ? 'Holds:' : 'Does not hold:'}</span>{' '}
                  {status.description}
                </li>
              ))}
            </ul>
            <h3>The report you commit on</h3>
            <p data-metric="reportEtag">
              {report?.reportEtag ? (
                <>
                  Report version <code>{report.reportEtag}</code>: if its verdicts or a gate change
                  before you confirm, nothing is committed.
                </>
              ) : (
                'The report has no version to bind the commit to.'
              )}
            </p>
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
