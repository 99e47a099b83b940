import { useState } from 'preact/hooks';
import type { ExperimentRef } from '../api/client';
import { messageOf } from '../api/errors';
import { ErrorMessage, formatCount } from '../components/status';
import { useSession } from '../context';
import { csvStream, flowCsvChunks } from './flows-csv';

/** The API's largest page: the fewest calls. */
const EXPORT_PAGE_SIZE = 1000;

/** Pages are fetched as the stream is written into the file. */
export function FlowsExport({
  experimentRef,
  filter,
}: {
  experimentRef: ExperimentRef;
  filter: string;
}) {
  const { api } = useSession();
  const [rows, setRows] = useState<number>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const download = async () => {
    setBusy(true);
    setError(undefined);
    setRows(0);
    try {
      const chunks = flowCsvChunks(
        (pageToken) => api.previewFlows(experimentRef, filter, EXPORT_PAGE_SIZE, pageToken),
        setRows,
      );
      const blob = await new Response(csvStream(chunks), {
        headers: { 'content-type': 'text/csv' },
      }).blob();
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = `${experimentRef.experiment}-changed-flows.csv`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    } catch (caught) {
      setError(messageOf(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="flows-export">
      <button
        type="button"
        class="secondary outline"
        aria-busy={busy}
        disabled={busy}
        onClick={() => void download()}
      >
        Download CSV (all pages)
      </button>{' '}
      {rows !== undefined && (
        <span role="status" data-metric="exportedRows">
          {busy ? 'Writing' : 'Wrote'} {formatCount(rows)} flows{busy ? '…' : '.'}
        </span>
      )}
      <ErrorMessage message={error} />
    </div>
  );
}
