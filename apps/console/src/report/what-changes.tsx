import type {
  FirewallPolicyExperiment,
  PreviewConfigurationReport,
  PreviewCoverage,
  RuleDiff,
} from '@rollout/contracts';
import { LoadedView } from '../changes/loaded-view';
import { RuleDiffView, SemanticSummary } from '../changes/rule-diff-view';
import { StaticAnalysis } from '../changes/static-analysis';
import type { Loaded } from '../changes/use-loaded';
import { formatCount } from '../components/status';
import { shareText } from './evidence';
import type { ReportSectionProps } from './section';

/** The previewed traffic's answer in one line: how much changes verdict, and which way. */
function Headline({ configuration: c }: { configuration: PreviewConfigurationReport }) {
  return (
    <p class="headline" data-metric="headline">
      <strong>{shareText(c.changed, c.evaluated, 'previewed events')}</strong> change verdict:{' '}
      <span class="diff-denied-text">{formatCount(c.allowToDeny)} allow → deny</span>,{' '}
      <span class="diff-allowed-text">{formatCount(c.denyToAllow)} deny → allow</span>.
    </p>
  );
}

/** In the order an operator decides on it; known before any traffic is evaluated, except the counts. */
export function RuleChanges({
  experiment,
  diff,
  showAnalysis,
  coverage,
  configuration,
}: {
  experiment?: FirewallPolicyExperiment | null;
  diff: Loaded<RuleDiff>;
  /** False on an older configuration: the analysis is of the experiment as it is now. */
  showAnalysis: boolean;
  coverage?: PreviewCoverage;
  configuration?: PreviewConfigurationReport;
}) {
  return (
    <>
      {configuration && <Headline configuration={configuration} />}
      {experiment !== null && diff.state === 'ready' && (
        <SemanticSummary
          semantic={diff.value.semantic}
          rulesChange={
            diff.value.added.length + diff.value.removed.length + diff.value.changed.length > 0
          }
        />
      )}
      <div class="grid what-changes">
        <div>
          <h3>Rules and fields</h3>
          {experiment === null ? (
            <p class="muted">
              The experiment is gone (committed or deleted): its rules are not held.
            </p>
          ) : (
            <LoadedView loaded={diff}>
              {(value) => (
                <RuleDiffView
                  diff={value}
                  caption="Rules the experiment changes"
                  semantic={false}
                />
              )}
            </LoadedView>
          )}
        </div>
        <div>
          <h3>Traffic, by static analysis</h3>
          {experiment === undefined ? (
            <p aria-busy="true">Loading…</p>
          ) : (
            <StaticAnalysis
              analysis={showAnalysis ? experiment?.analysis : undefined}
              coverage={coverage}
            />
          )}
        </div>
      </div>
    </>
  );
}

export function WhatChanges({ experiment, configuration, diff }: ReportSectionProps) {
  return (
    <RuleChanges
      experiment={experiment}
      diff={diff}
      showAnalysis={experiment?.etag === configuration.experimentEtag}
      coverage={configuration.coverage}
      configuration={configuration}
    />
  );
}
