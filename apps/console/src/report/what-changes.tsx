import { LoadedView } from '../changes/loaded-view';
import { RuleDiffView } from '../changes/rule-diff-view';
import { StaticAnalysis } from '../changes/static-analysis';
import type { ReportSectionProps } from './section';

/**
 * The first thing the report answers: which rules change (the experiment's diff against its
 * live policy), and what that does to traffic, in words (the static analysis).
 */
export function WhatChanges({ experiment, configuration, diff }: ReportSectionProps) {
  // The analysis is of the experiment as it is now: shown only on the configuration it is of.
  const analysis =
    experiment && experiment.etag === configuration.experimentEtag
      ? experiment.analysis
      : undefined;
  return (
    <div class="grid what-changes">
      <div>
        <h3>Rules</h3>
        {experiment === null && diff.state === 'unavailable' ? (
          <p class="muted">
            The experiment is gone (committed or deleted): its rules are not held.
          </p>
        ) : (
          <LoadedView loaded={diff} what="The rule diff">
            {(value) => <RuleDiffView diff={value} caption="Rules the experiment changes" />}
          </LoadedView>
        )}
      </div>
      <div>
        <h3>Traffic, by static analysis</h3>
        {experiment === undefined ? (
          <p aria-busy="true">Loading…</p>
        ) : (
          <StaticAnalysis analysis={analysis} coverage={configuration.coverage} />
        )}
      </div>
    </div>
  );
}
