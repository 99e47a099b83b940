import type { BacktestOperation } from '@rollout/contracts';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ExperimentRef } from '../api/client';
import { messageOf } from '../api/errors';
import { ErrorMessage, formatCount } from '../components/status';
import { useSession } from '../context';
import { shareText } from './evidence';
import { connectionText } from './flow-text';

const POLL_MS = 1_000;

/** Replays the experiment as it is now over what the stream still retains. */
export function BacktestPanel({ experimentRef }: { experimentRef: ExperimentRef }) {
  const { api, canEdit } = useSession();
  const [operation, setOperation] = useState<BacktestOperation>();
  const [error, setError] = useState<string>();
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const follow = (name: string) => {
    timer.current = setTimeout(() => {
      api.operation<BacktestOperation>(name).then(
        (next) => {
          setOperation(next);
          if (!next.done) follow(name);
        },
        (caught: unknown) => setError(messageOf(caught)),
      );
    }, POLL_MS);
  };
  const start = async () => {
    setError(undefined);
    setOperation(undefined);
    try {
      const started = await api.backtest(experimentRef);
      setOperation(started);
      if (!started.done) follow(started.name);
    } catch (caught) {
      setError(messageOf(caught));
    }
  };

  const running = operation !== undefined && !operation.done;
  const result = operation?.response;
  const [configuration] = result?.report.configurations ?? [];
  return (
    <div class="backtest">
      {canEdit && (
        <button type="button" aria-busy={running} disabled={running} onClick={() => void start()}>
          {operation?.done ? 'Backtest again' : 'Backtest on retained traffic'}
        </button>
      )}
      {running && (
        <p role="status" data-metric="backtestProgress">
          Replaying: {formatCount(operation.metadata.eventsReplayed)} events from{' '}
          {formatCount(operation.metadata.messagesReplayed)} messages so far…
        </p>
      )}
      {operation?.error && (
        <ErrorMessage message={`The backtest failed: ${operation.error.message}`} />
      )}
      <ErrorMessage message={error} />
      {result && (
        <div role="status" class="backtest-result">
          <p data-metric="backtestChanged">
            {configuration
              ? `Backtest: ${shareText(configuration.changed, configuration.evaluated, 'events')} change verdict (${formatCount(configuration.allowToDeny)} allow → deny, ${formatCount(configuration.denyToAllow)} deny → allow).`
              : 'Backtest: no event was replayed.'}
          </p>
          <p class="muted">{result.window.summary}</p>
          {result.topChangedFlows.length > 0 && (
            <ul class="backtest-flows">
              {result.topChangedFlows.slice(0, 5).map((flow) => (
                <li key={connectionText(flow)}>
                  {connectionText(flow)}: {formatCount(flow.count)} events,{' '}
                  {flow.transition === 'ALLOW_TO_DENY' ? 'allow → deny' : 'deny → allow'}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}
