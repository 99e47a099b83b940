import type { FirewallPolicy } from '@rollout/contracts';
import { useEffect, useState } from 'preact/hooks';
import type { ListRevisionsResponse, Revision } from '@rollout/contracts';
import { experimentFromRevision, listRevisions, revisionDiff } from '../api/change-api';
import type { PolicyRef } from '../api/client';
import { messageOf } from '../api/errors';
import { LoadedView } from '../changes/loaded-view';
import {
  currentRevision,
  experimentIdOf,
  revisionSourceText,
  rollbackPreviewId,
} from '../changes/revision-words';
import { RollbackDialog } from '../changes/rollback-dialog';
import { RuleDiffView } from '../changes/rule-diff-view';
import { useLoaded } from '../changes/use-loaded';
import { RulesTable } from '../components/rules-table';
import { Breadcrumb } from '../components/breadcrumb';
import { Pager, usePageTokens } from '../components/pager';
import { ErrorMessage, Notice, formatTime } from '../components/status';
import { useSession } from '../context';
import { routeHref } from '../router';

/** What made a revision; a commit links to its experiment's history. */
function Source({ policyRef, revision }: { policyRef: PolicyRef; revision: Revision }) {
  const text = revisionSourceText(revision.source);
  const experiment = revision.source.experiment;
  if (revision.source.kind !== 'commit' || !experiment) return <>{text}</>;
  const href = routeHref({
    page: 'experiment-history',
    ...policyRef,
    experiment: experimentIdOf(experiment),
  });
  return (
    <>
      {text} (<a href={href}>its history</a>)
    </>
  );
}

/** One revision's whole resource: what was live from it on, and why it was made. */
function RevisionResource({ revision }: { revision: Revision }) {
  return (
    <section aria-labelledby="revision-title" class="revision-resource">
      <h2 id="revision-title">Revision {revision.revisionId}</h2>
      <dl>
        <dt>Display name</dt>
        <dd data-field="displayName">{revision.displayName || '(none)'}</dd>
        <dt>Description</dt>
        <dd data-field="description">{revision.description || '(none)'}</dd>
        <dt>Made by</dt>
        <dd>
          {revision.actor}, {revisionSourceText(revision.source)}, {formatTime(revision.createTime)}
        </dd>
        {revision.source.reason && (
          <>
            <dt>Reason</dt>
            <dd data-field="reason">{revision.source.reason}</dd>
          </>
        )}
        {revision.source.review && (
          <>
            <dt>Review</dt>
            <dd>
              proposed by {revision.source.review.proposer}, approved by{' '}
              {revision.source.review.approver}
            </dd>
          </>
        )}
      </dl>
      {revision.rules === null ? (
        <p>The rules of this revision were not recorded.</p>
      ) : (
        <RulesTable rules={revision.rules} caption={`Rules of revision ${revision.revisionId}`} />
      )}
    </section>
  );
}

function ComparedRevisions({
  policyRef,
  from,
  to,
}: {
  policyRef: PolicyRef;
  from: string;
  to: string;
}) {
  const { api } = useSession();
  const compared = useLoaded(
    () => revisionDiff(api, policyRef, from, to),
    [api, policyRef, from, to],
  );
  return (
    <LoadedView loaded={compared}>
      {(value) => <RuleDiffView diff={value} caption={`Rules from revision ${from} to ${to}`} />}
    </LoadedView>
  );
}

function CompareRevisions({
  policyRef,
  revisions,
}: {
  policyRef: PolicyRef;
  revisions: Revision[];
}) {
  const ids = revisions.map((revision) => revision.revisionId);
  const [from, setFrom] = useState(ids[1] ?? ids[0] ?? '');
  const [to, setTo] = useState(ids[0] ?? '');
  const [asked, setAsked] = useState<{ from: string; to: string }>();
  const choice = (label: string, value: string, set: (id: string) => void) => (
    <label>
      {label}
      <select value={value} onChange={(event) => set(event.currentTarget.value)}>
        {ids.map((id) => (
          <option key={id} value={id}>
            revision {id}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <section aria-labelledby="compare-title" class="compare-revisions">
      <h2 id="compare-title">Compare any two</h2>
      <form
        class="grid"
        onSubmit={(event) => {
          event.preventDefault();
          setAsked({ from, to });
        }}
      >
        {choice('From', from, setFrom)}
        {choice('To', to, setTo)}
        <button type="submit" class="secondary">
          Compare
        </button>
      </form>
      {asked && <ComparedRevisions policyRef={policyRef} {...asked} />}
    </section>
  );
}

/** A rollback is previewed as an experiment (diff, backtest, preview) or made behind a confirmation. */
export function RevisionsPage({ policyRef }: { policyRef: PolicyRef }) {
  const { api, canEdit } = useSession();
  const pages = usePageTokens();
  const [policy, setPolicy] = useState<FirewallPolicy>();
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [reload, setReload] = useState(0);
  const [target, setTarget] = useState<Revision>();
  const [current, setCurrent] = useState<Revision>();
  const [shown, setShown] = useState<Revision>();
  const [previewing, setPreviewing] = useState<string>();

  const previewRollback = async (revision: Revision) => {
    setPreviewing(revision.revisionId);
    setError(undefined);
    try {
      const experiment = rollbackPreviewId(revision.revisionId, Date.now().toString(36));
      await experimentFromRevision(api, policyRef, experiment, revision.revisionId);
      window.location.hash = routeHref({ page: 'report', ...policyRef, experiment });
    } catch (caught) {
      setError(messageOf(caught));
      setPreviewing(undefined);
    }
  };
  const listed = useLoaded<ListRevisionsResponse>(
    () => listRevisions(api, policyRef, pages.current),
    [api, policyRef, pages.current, reload],
  );

  useEffect(() => {
    api.getPolicy(policyRef).then(setPolicy, (caught: unknown) => setError(messageOf(caught)));
  }, [api, policyRef, reload]);
  // The current revision is on the first page (newest first); kept while paging back in time.
  useEffect(() => {
    if (listed.state === 'ready' && pages.number === 1)
      setCurrent(currentRevision(listed.value.revisions, policy?.etag));
  }, [listed, policy?.etag]);

  return (
    <>
      <Breadcrumb policyRef={policyRef} last="Revisions" />
      <h1>Revisions of {policyRef.policy}</h1>
      <p>
        Every version of the live rules, newest first.{' '}
        <a href={routeHref({ page: 'history', ...policyRef })}>History</a>
      </p>
      <ErrorMessage message={error} />
      {notice && <Notice>{notice}</Notice>}
      <LoadedView loaded={listed}>
        {(value) => (
          <div class="table-scroll" tabIndex={0} role="region" aria-label="Revisions">
            <table class="striped revisions cards">
              <thead>
                <tr>
                  <th scope="col">Revision</th>
                  <th scope="col">Time</th>
                  <th scope="col">Actor</th>
                  <th scope="col">Made by</th>
                  <th scope="col">Request id</th>
                  <th scope="col">Rules</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {value.revisions.map((revision) => (
                  <tr key={revision.name} data-revision={revision.revisionId}>
                    <td data-label="Revision">{revision.revisionId}</td>
                    <td data-label="Time" class="seen">
                      {formatTime(revision.createTime)}
                    </td>
                    <td data-label="Actor">{revision.actor}</td>
                    <td data-label="Made by">
                      <Source policyRef={policyRef} revision={revision} />
                    </td>
                    <td data-label="Request id">
                      {revision.requestId ? <code>{revision.requestId}</code> : '–'}
                    </td>
                    <td data-label="Rules">
                      {revision.rules === null ? 'not recorded' : revision.rules.length}
                    </td>
                    <td data-label="Actions" class="row-actions">
                      <button
                        type="button"
                        class="secondary outline small"
                        aria-pressed={shown?.revisionId === revision.revisionId}
                        onClick={() => setShown(revision)}
                      >
                        View {revision.revisionId}
                      </button>
                      {revision.revisionId === current?.revisionId ? (
                        <span> current</span>
                      ) : (
                        canEdit &&
                        revision.rules !== null &&
                        current &&
                        policy && (
                          <>
                            <button
                              type="button"
                              class="secondary outline small"
                              aria-busy={previewing === revision.revisionId}
                              disabled={previewing !== undefined}
                              onClick={() => void previewRollback(revision)}
                            >
                              Preview rollback to {revision.revisionId}
                            </button>
                            <button
                              type="button"
                              class="secondary outline small"
                              onClick={() => setTarget(revision)}
                            >
                              Roll back to {revision.revisionId}…
                            </button>
                          </>
                        )
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </LoadedView>
      <Pager
        label="Pages of revisions"
        pages={pages}
        next={listed.state === 'ready' ? listed.value.nextPageToken : undefined}
      />
      {shown && <RevisionResource revision={shown} />}
      {listed.state === 'ready' && listed.value.revisions.length > 1 && (
        <CompareRevisions policyRef={policyRef} revisions={listed.value.revisions} />
      )}
      {target && current && policy && (
        <RollbackDialog
          policyRef={policyRef}
          current={current}
          target={target}
          policyEtag={policy.etag}
          onClose={() => setTarget(undefined)}
          onDone={() => {
            setNotice(`Rolled back to revision ${target.revisionId}.`);
            setReload(reload + 1);
          }}
        />
      )}
    </>
  );
}
