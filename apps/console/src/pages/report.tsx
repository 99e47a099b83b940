import type {
  FirewallPolicy,
  FirewallPolicyExperiment,
  PreviewConfigurationReport,
  PreviewReport,
} from '@rollout/contracts';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ExperimentRef } from '../api/client';
import { messageOf } from '../api/errors';
import { ErrorMessage, formatTime } from '../components/status';
import { useSession } from '../context';
import { experimentDiff } from '../api/change-api';
import { useLoaded } from '../changes/use-loaded';
import { REPORT_SECTIONS } from '../report/sections';
import { RuleChanges } from '../report/what-changes';
import { BacktestSection } from '../report/backtest-section';
import { Breadcrumb } from '../components/breadcrumb';
import { routeHref } from '../router';
import { CommitDialog } from './commit-dialog';
import { PREVIEW_STATE_LABEL, previewStateOf } from './policy';

const REFRESH_MS = 5_000;

const configurationKey = (c: PreviewConfigurationReport) =>
  `${c.experimentEtag}|${c.livePolicyEtag}`;
const revisionOf = (c: PreviewConfigurationReport) =>
  `${configurationKey(c)}|${c.evaluated}|${c.lastEventTime}`;

/** While the preview is ACTIVE the numbers refresh in place: the chosen configuration, filter and page stay. */
export function ReportPage({ experimentRef }: { experimentRef: ExperimentRef }) {
  const { api, canEdit, principal } = useSession();
  const [report, setReport] = useState<PreviewReport>();
  const [experiment, setExperiment] = useState<FirewallPolicyExperiment | null>();
  const [livePolicy, setLivePolicy] = useState<FirewallPolicy>();
  const [committing, setCommitting] = useState(false);
  const [chosen, setChosen] = useState<string>();
  const [error, setError] = useState<string>();
  const [refreshedAt, setRefreshedAt] = useState<Date>();
  const diff = useLoaded(() => experimentDiff(api, experimentRef), [api, experimentRef]);

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async () => {
      try {
        // A committed or deleted experiment is gone, but its report stays readable for a while.
        const experimentRead = api.getExperiment(experimentRef).catch(() => null);
        const policyRead = api.getPolicy(experimentRef).catch(() => undefined);
        // The numbers are shown as soon as they come; the rules (hover text, analysis) follow.
        const answer = await api.previewReport(experimentRef);
        if (!live) return;
        setReport(answer);
        setError(undefined);
        setRefreshedAt(new Date());
        const [found, policy] = await Promise.all([experimentRead, policyRead]);
        if (!live) return;
        setExperiment(found);
        setLivePolicy(policy);
        if (found && previewStateOf(found) === 'ACTIVE') timer = setTimeout(load, REFRESH_MS);
      } catch (caught) {
        if (!live) return;
        setError(messageOf(caught));
        timer = setTimeout(load, REFRESH_MS * 2);
      }
    };
    void load();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [api, experimentRef]);

  const configurations = report?.configurations ?? [];
  const configuration =
    configurations.find((c) => configurationKey(c) === chosen) ?? configurations[0];
  const state = experiment ? previewStateOf(experiment) : undefined;
  // A version's rules are known only while it is the current one.
  const rules = useMemo(
    () => ({
      live:
        livePolicy && livePolicy.etag === configuration?.livePolicyEtag
          ? livePolicy.rules
          : undefined,
      experiment:
        experiment && experiment.etag === configuration?.experimentEtag
          ? experiment.firewallPolicy.rules
          : undefined,
    }),
    [livePolicy, experiment, configuration?.livePolicyEtag, configuration?.experimentEtag],
  );

  return (
    <>
      <Breadcrumb
        policyRef={experimentRef}
        through={[
          {
            text: experimentRef.experiment,
            href: routeHref({ page: 'experiment', ...experimentRef }),
          },
        ]}
        last="Report"
      />
      <h1>Preview report of {experimentRef.experiment}</h1>
      <p class="report-state">
        {experiment === null
          ? 'The experiment no longer exists (committed or deleted); its report is kept for a while.'
          : state && (
              <>
                Preview state: {PREVIEW_STATE_LABEL[state] ?? state}
                {state === 'ACTIVE' ? '; the numbers update by themselves.' : '.'}
              </>
            )}{' '}
        {refreshedAt && <small>Read at {refreshedAt.toLocaleTimeString('en-GB')}.</small>}{' '}
        {canEdit && experiment && (
          <button type="button" class="contrast small" onClick={() => setCommitting(true)}>
            {experiment.commitProposal?.experimentEtag === experiment.etag &&
            experiment.commitProposal.proposer !== principal.name
              ? 'Approve…'
              : 'Commit…'}
          </button>
        )}
      </p>
      {committing && experiment && (
        <CommitDialog
          experimentRef={experimentRef}
          experiment={experiment}
          onClose={() => setCommitting(false)}
          onProposed={setExperiment}
        />
      )}
      <ErrorMessage message={error} />
      {report && configurations.length === 0 && (
        <>
          <p>No traffic has been evaluated for this experiment yet.</p>
          <section aria-labelledby="title-what-changes" class="report-section">
            <h2 id="title-what-changes">What changes</h2>
            <RuleChanges experiment={experiment} diff={diff} showAnalysis />
          </section>
          <section aria-labelledby="title-backtest" class="report-section">
            <h2 id="title-backtest">Backtest on retained traffic</h2>
            <BacktestSection experimentRef={experimentRef} experiment={experiment} />
          </section>
        </>
      )}
      {configuration && (
        <>
          <label class="configuration">
            Configuration (experiment etag × live policy etag)
            <select
              value={configurationKey(configuration)}
              onChange={(event) => setChosen(event.currentTarget.value)}
            >
              {configurations.map((c, index) => (
                <option key={configurationKey(c)} value={configurationKey(c)}>
                  {c.experimentEtag} × {c.livePolicyEtag}
                  {index === 0 ? ' (newest)' : ''}
                </option>
              ))}
            </select>
          </label>
          <p class="muted events-span">
            Events from {formatTime(configuration.firstEventTime)} to{' '}
            {formatTime(configuration.lastEventTime)}.
          </p>
          {REPORT_SECTIONS.map(({ id, title, component: Section }) => (
            <section
              key={`${id}:${configurationKey(configuration)}`}
              id={`section-${id}`}
              aria-labelledby={`title-${id}`}
              class="report-section"
            >
              <h2 id={`title-${id}`}>{title}</h2>
              <Section
                report={report as PreviewReport}
                configuration={configuration}
                experimentRef={experimentRef}
                revision={revisionOf(configuration)}
                experiment={experiment}
                rules={rules}
                diff={diff}
              />
            </section>
          ))}
        </>
      )}
    </>
  );
}
