import type { FirewallPolicy } from '@rollout/contracts';
import { useEffect, useState } from 'preact/hooks';
import type { ListRevisionsResponse, Revision } from '@rollout/contracts';
import { listRevisions } from '../api/change-api';
import type { PolicyRef } from '../api/client';
import { messageOf } from '../api/errors';
import { LoadedView } from '../changes/loaded-view';
import { currentRevision, experimentIdOf, revisionSourceText } from '../changes/revision-words';
import { RollbackDialog } from '../changes/rollback-dialog';
import { useLoaded } from '../changes/use-loaded';
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

/** A policy's revisions, newest first, each restorable behind a confirmation. */
export function RevisionsPage({ policyRef }: { policyRef: PolicyRef }) {
  const { api, canEdit } = useSession();
  const pages = usePageTokens();
  const [policy, setPolicy] = useState<FirewallPolicy>();
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [reload, setReload] = useState(0);
  const [target, setTarget] = useState<Revision>();
  const [current, setCurrent] = useState<Revision>();
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
            <table class="striped revisions">
              <thead>
                <tr>
                  <th scope="col">Revision</th>
                  <th scope="col">Time</th>
                  <th scope="col">Actor</th>
                  <th scope="col">Made by</th>
                  <th scope="col">Request id</th>
                  <th scope="col">Rules</th>
                  <th scope="col">Rollback</th>
                </tr>
              </thead>
              <tbody>
                {value.revisions.map((revision) => (
                  <tr key={revision.name} data-revision={revision.revisionId}>
                    <td>{revision.revisionId}</td>
                    <td class="seen">{formatTime(revision.createTime)}</td>
                    <td>{revision.actor}</td>
                    <td>
                      <Source policyRef={policyRef} revision={revision} />
                    </td>
                    <td>{revision.requestId ? <code>{revision.requestId}</code> : '–'}</td>
                    <td>{revision.rules === null ? 'not recorded' : revision.rules.length}</td>
                    <td>
                      {revision.revisionId === current?.revisionId ? (
                        'current'
                      ) : canEdit && revision.rules !== null && current && policy ? (
                        <button
                          type="button"
                          class="secondary outline small"
                          onClick={() => setTarget(revision)}
                        >
                          Roll back to {revision.revisionId}…
                        </button>
                      ) : (
                        '–'
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
