import type { ExperimentAnalysis, PreviewCoverage } from '@rollout/contracts';
import { describeRegion, regionOpens } from './rule-words';

/**
 * The static analysis in words: where the experiment and the live policy decide differently
 * (the experiment's `analysis`), its rules that can never decide, and from the report's
 * coverage the differing regions no previewed traffic touched.
 */
export function StaticAnalysis({
  analysis,
  coverage,
}: {
  analysis?: ExperimentAnalysis;
  coverage?: PreviewCoverage;
}) {
  if (!analysis && !coverage)
    return <p class="muted">No static analysis for this version of the experiment.</p>;
  if (analysis && !analysis.complete)
    return (
      <p>
        The rules were too intricate to analyse within the work bound: nothing can be said about the
        regions that change.
      </p>
    );
  const regions = analysis?.differingRegions ?? [];
  const shadowed = analysis?.shadowedRules ?? [];
  const untouched = coverage?.complete ? coverage.untouchedRegions : [];
  return (
    <div class="static-analysis">
      {analysis && (
        <>
          <p data-metric="differingRegions">
            {regions.length === 0
              ? 'The experiment decides every connection as the live policy does.'
              : `${regions.length + analysis.regionsOmitted} region${
                  regions.length + analysis.regionsOmitted === 1 ? '' : 's'
                } of traffic change verdict${analysis.regionsOmitted ? ` (${analysis.regionsOmitted} not listed)` : ''}:`}
          </p>
          {regions.length > 0 && (
            <ul class="regions">
              {regions.map((region) => {
                const text = describeRegion(region);
                return (
                  <li key={text} class={regionOpens(region) ? 'diff-allowed' : 'diff-denied'}>
                    {text}
                  </li>
                );
              })}
            </ul>
          )}
        </>
      )}
      {shadowed.length > 0 && (
        <p class="warning" data-metric="shadowedRules">
          {shadowed
            .map(
              (rule) =>
                `Rule ${rule.priority} can never decide: rule${rule.coveredBy.length === 1 ? '' : 's'} ${rule.coveredBy.join(', ')} match all it matches.`,
            )
            .join(' ')}
        </p>
      )}
      {untouched.length > 0 && (
        <>
          <p class="warning" data-metric="untouchedRegions">
            No previewed traffic touched {untouched.length} of the changing regions
            {coverage?.exact ? '' : ' (or too little is known to be sure)'}: the preview says
            nothing about them.
          </p>
          <ul class="regions">
            {untouched.map((region) => {
              const text = describeRegion(region);
              return <li key={text}>{text}</li>;
            })}
          </ul>
        </>
      )}
    </div>
  );
}
