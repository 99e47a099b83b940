import type { PreviewFlow } from '@rollout/contracts';
import { useEffect, useState } from 'preact/hooks';
import { messageOf } from '../api/errors';
import { Pager, usePageTokens } from '../components/pager';
import { ErrorMessage, formatCount, formatTime } from '../components/status';
import { useSession } from '../context';
import { connectionText, seenSpan } from './flow-text';
import { FlowsExport } from './flows-export';
import { ruleLabel } from '../changes/rule-words';
import type { ReportSectionProps } from './section';

const PAGE_SIZE = 20;

const flowKey = (flow: PreviewFlow) =>
  [
    flow.direction,
    flow.srcIp,
    flow.destIp,
    flow.protocol,
    flow.destPort,
    ruleLabel(flow.liveResult),
    ruleLabel(flow.experimentResult),
  ].join('|');

/** A refresh reloads the page the operator is on, keeping the filter, the page and the opened samples. */
export function ChangedFlows({ configuration, experimentRef, revision }: ReportSectionProps) {
  const { api } = useSession();
  const [draft, setDraft] = useState('');
  const [filter, setFilter] = useState('');
  const pages = usePageTokens();
  const [page, setPage] = useState<{ flows: PreviewFlow[]; next?: string }>();
  const [opened, setOpened] = useState<Set<string>>(new Set());
  const [error, setError] = useState<string>();
  // The flows of the chosen configuration only, whatever else the operator filters on.
  const scoped = [
    `experimentEtag = "${configuration.experimentEtag}"`,
    `livePolicyEtag = "${configuration.livePolicyEtag}"`,
    filter.trim(),
  ]
    .filter(Boolean)
    .join(' AND ');

  useEffect(() => {
    let live = true;
    api.previewFlows(experimentRef, scoped, PAGE_SIZE, pages.current).then(
      (answer) => {
        if (!live) return;
        setError(undefined);
        setPage({ flows: answer.previewFlows, next: answer.nextPageToken });
      },
      (caught: unknown) => live && setError(messageOf(caught)),
    );
    return () => void (live = false);
  }, [api, experimentRef, scoped, pages.current, revision]);

  const apply = (event: Event) => {
    event.preventDefault();
    setFilter(draft);
    pages.restart();
  };
  const toggle = (key: string) => {
    const next = new Set(opened);
    if (!next.delete(key)) next.add(key);
    setOpened(next);
  };

  return (
    <>
      <form class="flow-filter" onSubmit={apply} aria-label="Filter the changed flows">
        <label for="flow-filter">Filter</label>
        <fieldset role="group">
          <input
            id="flow-filter"
            name="filter"
            placeholder='transition = ALLOW_TO_DENY AND ip = "10.0.0.0/8" AND destPort = 22'
            value={draft}
            onInput={(event) => setDraft(event.currentTarget.value)}
            aria-describedby="flow-filter-help"
          />
          <button type="submit">Apply</button>
        </fieldset>
        <small id="flow-filter-help">
          Terms joined by AND: transition, liveRule, experimentRule, srcIp, destIp, ip (an address
          or a range), destPort (=, &gt;=, &lt;=), protocol, direction.
        </small>
      </form>
      <FlowsExport experimentRef={experimentRef} filter={scoped} />
      <ErrorMessage message={error} />
      {page && (
        <div class="table-scroll" tabIndex={0} role="region" aria-label="Changed flows">
          <table class="striped flows cards">
            <thead>
              <tr>
                <th scope="col">Change</th>
                <th scope="col">Connection</th>
                <th scope="col">Live rule</th>
                <th scope="col">Experiment rule</th>
                <th scope="col">Events</th>
                <th scope="col">Seen (UTC)</th>
                <th scope="col">Samples</th>
              </tr>
            </thead>
            <tbody>
              {page.flows.length === 0 && (
                <tr>
                  <td colSpan={7}>
                    {filter ? 'No changed flow matches the filter.' : 'No changed flows.'}
                  </td>
                </tr>
              )}
              {page.flows.map((flow) => {
                const key = flowKey(flow);
                const isOpen = opened.has(key);
                return [
                  <tr key={key} class="flow">
                    <td
                      data-label="Change"
                      class={flow.transition === 'ALLOW_TO_DENY' ? 'action-deny' : 'action-allow'}
                    >
                      {flow.transition === 'ALLOW_TO_DENY' ? 'allow → deny' : 'deny → allow'}
                    </td>
                    <td data-label="Connection">{connectionText(flow)}</td>
                    <td data-label="Live rule">{ruleLabel(flow.liveResult)}</td>
                    <td data-label="Experiment rule">{ruleLabel(flow.experimentResult)}</td>
                    <td data-label="Events" data-metric="flowCount">
                      {formatCount(flow.count)}
                    </td>
                    <td
                      data-label="Seen (UTC)"
                      class="seen"
                      title={`${formatTime(flow.firstEventTime)} – ${formatTime(flow.lastEventTime)}`}
                    >
                      {seenSpan(flow.firstEventTime, flow.lastEventTime)}
                    </td>
                    <td data-label="Samples">
                      <button
                        type="button"
                        class="secondary outline small"
                        aria-expanded={isOpen}
                        onClick={() => toggle(key)}
                      >
                        {isOpen ? 'Hide' : 'Show'} {flow.samples.length}
                      </button>
                    </td>
                  </tr>,
                  isOpen && (
                    <tr key={`${key}:samples`} class="samples">
                      <td colSpan={7}>
                        <ul>
                          {flow.samples.map((sample) => (
                            <li key={sample.trafficEventId}>
                              <code>{sample.trafficEventId}</code> at {formatTime(sample.eventTime)}
                              {sample.srcPort === undefined
                                ? ''
                                : `, source port ${sample.srcPort}`}
                            </li>
                          ))}
                        </ul>
                      </td>
                    </tr>
                  ),
                ];
              })}
            </tbody>
          </table>
        </div>
      )}
      <Pager label="Pages of changed flows" pages={pages} next={page?.next}>
        {configuration.flows === undefined
          ? ''
          : ` of ${formatCount(Math.max(1, Math.ceil(configuration.flows / PAGE_SIZE)))}`}
      </Pager>
      {configuration.changedOutsideFlows ? (
        <p class="muted">
          {formatCount(configuration.changedOutsideFlows)} changed events are counted above but
          belong to no kept flow (the evaluator's flow limit).
        </p>
      ) : null}
    </>
  );
}
