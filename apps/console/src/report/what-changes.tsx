import type { FirewallPolicyExperiment, PreviewCoverage } from '@rollout/contracts';
import type { RuleDiff } from '@rollout/contracts';
import { LoadedView } from '../changes/loaded-view';
import { RuleDiffView } from '../changes/rule-diff-view';
import { StaticAnalysis } from '../changes/static-analysis';
import type { Loaded } from '../changes/use-loaded';
import type { ReportSectionProps } from './section';

/**
 * Which rules change (the experiment's diff against its live policy) and what that does to
 * traffic, in words (the static analysis): known before any traffic is evaluated.
 */
export function RuleChanges({
  experiment,
  diff,
  showAnalysis,
  coverage,
}: {
  experiment?: FirewallPolicyExperiment | null;
  diff: Loaded<RuleDiff>;
  /** The analysis is of the experiment as it is now: false on an older configuration. */
  showAnalysis: boolean;
  coverage?: PreviewCoverage;
}) {
  return (
    <div class="grid what-changes">
      <div>
        <h3>Rules</h3>
        {experiment === null ? (
          <p class="muted">
            The experiment is gone (committed or deleted): its rules are not held.
          </p>
        ) : (
          <LoadedView loaded={diff}>
            {(value) => <RuleDiffView diff={value} caption="Rules the experiment changes" />}
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
  );
}

/** The report's first section: what changes, for the configuration shown. */
export function WhatChanges({ experiment, configuration, diff }: ReportSectionProps) {
  return (
    <RuleChanges
      experiment={experiment}
      diff={diff}
      showAnalysis={experiment?.etag === configuration.experimentEtag}
      coverage={configuration.coverage}
    />
  );
}
