import type {
  FirewallPolicy,
  FirewallPolicyExperiment,
  PreviewReport,
  ProjectSettings,
} from '@rollout/contracts';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ExperimentRef } from '../api/client';
import { messageOf } from '../api/errors';
import { experimentDiff, projectSettings } from '../api/change-api';
import { LoadedView } from '../changes/loaded-view';
import { RuleDiffView } from '../changes/rule-diff-view';
import { useLoaded } from '../changes/use-loaded';
import { ErrorMessage, Notice, formatCount, formatTime } from '../components/status';
import { useSession } from '../context';
import { commitGates, currentConfiguration } from '../report/gates';
import { routeHref } from '../router';

/** The most a reason may hold (the API's bound). */
const REASON_MAX = 1_000;

/** Bound to the two etags (a change meanwhile makes it fail); where the project requires review it proposes instead. */
export function CommitDialog({
  experimentRef,
  experiment,
  onClose,
  onProposed,
}: {
  experimentRef: ExperimentRef;
  experiment: FirewallPolicyExperiment;
  onClose: () => void;
  /** The experiment as the proposal left it (with its commitProposal). */
  onProposed?: (experiment: FirewallPolicyExperiment) => void;
}) {
  const { api, principal } = useSession();
  const dialog = useRef<HTMLDialogElement>(null);
  const [livePolicy, setLivePolicy] = useState<FirewallPolicy>();
  const [report, setReport] = useState<PreviewReport>();
  const [settings, setSettings] = useState<ProjectSettings | null>();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string>();
  const [proposed, setProposed] = useState<string>();
  const [busy, setBusy] = useState(false);
  const diff = useLoaded(() => experimentDiff(api, experimentRef), [api, experimentRef]);

  useEffect(() => {
    dialog.current?.showModal();
    Promise.all([
      api.getPolicy(experimentRef),
      api.previewReport(experimentRef).catch(() => undefined),
      // Unknown settings are not a reason to refuse: the commit then says what is required.
      projectSettings(api, experimentRef.project).catch(() => null),
    ]).then(
      ([policy, found, project]) => {
        setLivePolicy(policy);
        setReport(found);
        setSettings(project);
      },
      (caught: unknown) => setError(messageOf(caught)),
    );
  }, [api, experimentRef]);

  // A proposal counts only for the version it was made on: any change of the experiment drops it.
  const proposal =
    experiment.commitProposal?.experimentEtag === experiment.etag
      ? experiment.commitProposal
      : undefined;
  const reviewRequired = settings?.requireCommitReview === true;
  const canApprove = proposal !== undefined && proposal.proposer !== principal.name;
  const verb = canApprove ? 'approveCommit' : reviewRequired ? 'proposeCommit' : 'commit';

  const commit = async () => {
    if (!livePolicy) return;
    setBusy(true);
    setError(undefined);
    try {
      const operation = await api.commit(
        experimentRef,
        {
          etag: experiment.etag,
          livePolicyEtag: livePolicy.etag,
          reportEtag: report?.reportEtag,
          // An approval carries no reason of its own: the proposal's is the one recorded.
          reason: verb === 'approveCommit' ? undefined : reason.trim(),
        },
        verb,
      );
      if (verb === 'proposeCommit') {
        setBusy(false);
        setProposed('Proposed. Another editor approves it here, on this experiment.');
        onProposed?.(operation.response as FirewallPolicyExperiment);
        return;
      }
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
        <h2 id="commit-title">
          {canApprove ? 'Approve the commit of' : reviewRequired ? 'Propose to commit' : 'Commit'}{' '}
          {experimentRef.experiment}?
        </h2>
        <p>
          Its whole resource (display name, description and rules) becomes the live policy{' '}
          {experimentRef.policy} and the experiment is removed. The commit is bound to the
          experiment’s etag <code>{experiment.etag}</code>
          {livePolicy && (
            <>
              {' '}
              and the live policy’s etag <code>{livePolicy.etag}</code>
            </>
          )}
          : if either changes meanwhile, nothing is committed.
        </p>
        {proposal && (
          <p class="proposal" data-metric="commitProposal">
            Proposed by <strong>{proposal.proposer}</strong> at {formatTime(proposal.proposeTime)}
            {proposal.reason ? <>: “{proposal.reason}”.</> : '.'}{' '}
            {canApprove
              ? 'Approving commits it, checked against the report you read now.'
              : 'It waits for another editor’s approval; you cannot approve your own proposal.'}
          </p>
        )}
        {reviewRequired && !canApprove && (
          <p class="warning" data-metric="reviewRequired">
            This project requires review: confirming proposes the commit, and it happens when
            another editor approves it.
          </p>
        )}
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
                  Report etag <code>{report.reportEtag}</code>: if its verdicts or a gate change
                  before you confirm, nothing is committed.
                </>
              ) : (
                'The report has no etag to bind the commit to.'
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
              <p>The report has no numbers for these two etags.</p>
            )}
          </>
        )}
        {!canApprove && (
          <label>
            Reason (kept in the revision and its history)
            <textarea
              rows={2}
              maxLength={REASON_MAX}
              value={reason}
              placeholder="SEC-42: no SSH from the internet"
              onInput={(event) => setReason(event.currentTarget.value)}
            />
          </label>
        )}
        <ErrorMessage message={error} />
        {proposed && <Notice>{proposed}</Notice>}
        <footer>
          <button type="button" class="secondary" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button
            type="button"
            class="contrast"
            aria-busy={busy}
            disabled={busy || !livePolicy || settings === undefined || proposed !== undefined}
            onClick={() => void commit()}
          >
            {canApprove ? 'Approve' : reviewRequired ? 'Propose commit' : 'Commit'}
          </button>
        </footer>
      </article>
    </dialog>
  );
}
