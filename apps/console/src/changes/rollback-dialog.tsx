import { useEffect, useRef, useState } from 'preact/hooks';
import type { Revision } from '@rollout/contracts';
import { revisionDiff, rollback } from '../api/change-api';
import type { PolicyRef } from '../api/client';
import { messageOf } from '../api/errors';
import { ErrorMessage } from '../components/status';
import { useSession } from '../context';
import { LoadedView } from './loaded-view';
import { RuleDiffView } from './rule-diff-view';
import { useLoaded } from './use-loaded';

export function RollbackDialog({
  policyRef,
  current,
  target,
  policyEtag,
  onDone,
  onClose,
}: {
  policyRef: PolicyRef;
  current: Revision;
  target: Revision;
  policyEtag: string;
  onDone: () => void;
  onClose: () => void;
}) {
  const { api } = useSession();
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [reason, setReason] = useState('');
  const diff = useLoaded(
    () => revisionDiff(api, policyRef, current.revisionId, target.revisionId),
    [api, policyRef, current.revisionId, target.revisionId],
  );
  useEffect(() => dialog.current?.showModal(), []);

  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await rollback(api, policyRef, target.revisionId, policyEtag, reason.trim());
      dialog.current?.close();
      onDone();
    } catch (caught) {
      setError(messageOf(caught));
      setBusy(false);
    }
  };

  return (
    <dialog ref={dialog} onClose={onClose} aria-labelledby="rollback-title">
      <article>
        <h2 id="rollback-title">
          Roll {policyRef.policy} back to revision {target.revisionId}?
        </h2>
        <p>
          The whole resource of revision {target.revisionId} (display name, description and rules)
          becomes live again, as a new revision. The rollback is bound to the live policy’s etag{' '}
          <code>{policyEtag}</code>: if the policy changes meanwhile, nothing is rolled back.
        </p>
        <h3>What rolling back changes</h3>
        <LoadedView loaded={diff}>
          {(value) => <RuleDiffView diff={value} caption="Rules the rollback changes" />}
        </LoadedView>
        <label>
          Reason (kept in the revision and its history)
          <textarea
            rows={2}
            maxLength={1_000}
            value={reason}
            onInput={(event) => setReason(event.currentTarget.value)}
          />
        </label>
        <ErrorMessage message={error} />
        <footer>
          <button type="button" class="secondary" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button
            type="button"
            class="contrast"
            aria-busy={busy}
            disabled={busy}
            onClick={() => void confirm()}
          >
            Roll back
          </button>
        </footer>
      </article>
    </dialog>
  );
}
