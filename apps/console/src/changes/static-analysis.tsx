import type { DifferingRegion, ExperimentAnalysis, PreviewCoverage } from '@rollout/contracts';
import { describeRegion, regionOpens } from './rule-words';

const closing = (regions: DifferingRegion[]) =>
  regions.filter((region) => !regionOpens(region)).length;

/**
 * Regions of traffic behind a disclosure: a policy change easily makes a dozen CIDR blocks,
 * which would push what the operator decides on (the counts, the sentences) off the screen.
 */
function Regions({
  summary,
  regions,
  coloured = false,
}: {
  summary: string;
  regions: DifferingRegion[];
  coloured?: boolean;
}) {
  return (
    <details class="regions-disclosure">
      <summary>
        {summary} ({regions.length})
      </summary>
      <ul class="regions">
        {regions.map((region) => {
          const text = describeRegion(region);
          return (
            <li
              key={text}
              class={coloured ? (regionOpens(region) ? 'diff-allowed' : 'diff-denied') : undefined}
            >
              {text}
            </li>
          );
        })}
      </ul>
    </details>
  );
}

/** Coverage: the differing regions no previewed traffic touched. */
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
                } of traffic change verdict${analysis.regionsOmitted ? ` (${analysis.regionsOmitted} not listed)` : ''}: ${closing(regions)} closed, ${regions.length - closing(regions)} opened.`}
          </p>
          {regions.length > 0 && (
            <Regions summary="The regions that change verdict" regions={regions} coloured />
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
          <Regions summary="The regions no previewed traffic touched" regions={untouched} />
        </>
      )}
    </div>
  );
}
