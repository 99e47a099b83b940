import type { FirewallPolicyExperiment, HistoryEvent } from '@rollout/contracts';
import { useEffect, useState } from 'preact/hooks';
import type { ExperimentRef, PolicyRef } from '../api/client';
import { LoadedView } from '../changes/loaded-view';
import { useLoaded } from '../changes/use-loaded';
import { routeHref } from '../router';
import { messageOf } from '../api/errors';
import { ErrorMessage, formatTime } from '../components/status';
import { useSession } from '../context';
import { Breadcrumb } from '../components/breadcrumb';
import { idOf } from '../names';
import { allExperiments } from './policy';

export function EventsTable({ events, caption }: { events: HistoryEvent[]; caption: string }) {
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-label={caption}>
      <table class="striped history">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Event</th>
            <th scope="col">Time</th>
            <th scope="col">Actor</th>
            <th scope="col">Request id</th>
          </tr>
        </thead>
        <tbody>
          {events.map((event) => (
            <tr key={event.version}>
              <td>{event.version}</td>
              <td>{event.type}</td>
              <td>{formatTime(event.time)}</td>
              <td>{event.actor}</td>
              <td>{event.requestId ? <code>{event.requestId}</code> : '–'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function HistoryPage({ policyRef }: { policyRef: PolicyRef }) {
  const { api } = useSession();
  const [policyEvents, setPolicyEvents] = useState<HistoryEvent[]>();
  const [experiments, setExperiments] =
    useState<{ experiment: FirewallPolicyExperiment; events: HistoryEvent[] }[]>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    let live = true;
    (async () => {
      const [history, list] = await Promise.all([
        api.policyHistory(policyRef),
        allExperiments(api, policyRef),
      ]);
      const withEvents = await Promise.all(
        list.map(async (experiment) => ({
          experiment,
          events: (await api.experimentHistory({ ...policyRef, experiment: idOf(experiment.name) }))
            .events,
        })),
      );
      if (!live) return;
      setPolicyEvents(history.events);
      setExperiments(withEvents);
    })().catch((caught: unknown) => live && setError(messageOf(caught)));
    return () => void (live = false);
  }, [api, policyRef]);

  return (
    <>
      <Breadcrumb policyRef={policyRef} last="History" />
      <h1>History of {policyRef.policy}</h1>
      <p>
        <a href={routeHref({ page: 'revisions', ...policyRef })}>Revisions</a>: each version of the
        rules, what made it (a commit links to its experiment's history), and rollback.
      </p>
      <ErrorMessage message={error} />
      {policyEvents && <EventsTable events={policyEvents} caption="The live policy" />}
      {experiments?.map(({ experiment, events }) => (
        <EventsTable
          key={experiment.name}
          events={events}
          caption={`Experiment ${idOf(experiment.name)}`}
        />
      ))}
      {experiments?.length === 0 && (
        <p>
          The policy has no experiments now; those committed or deleted show in its history above.
        </p>
      )}
    </>
  );
}

/** Reachable after a commit or delete from the policy's revisions. */
export function ExperimentHistoryPage({ experimentRef }: { experimentRef: ExperimentRef }) {
  const { api } = useSession();
  const history = useLoaded(() => api.experimentHistory(experimentRef), [api, experimentRef]);
  return (
    <>
      <Breadcrumb
        policyRef={experimentRef}
        through={[{ text: 'Revisions', href: routeHref({ page: 'revisions', ...experimentRef }) }]}
        last={`${experimentRef.experiment} history`}
      />
      <h1>History of experiment {experimentRef.experiment}</h1>
      <LoadedView loaded={history}>
        {(value) => (
          <EventsTable events={value.events} caption={`Experiment ${experimentRef.experiment}`} />
        )}
      </LoadedView>
    </>
  );
}
