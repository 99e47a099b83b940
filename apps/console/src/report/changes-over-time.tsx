import { useMemo } from 'preact/hooks';
import { Chart } from '../components/chart';
import type { ReportSectionProps } from './section';
import { TIME_BUCKET_SERIES, bucketSizeLabel, timeBucketsOption } from './time-buckets';

/** When verdicts change: events per time bucket as stacked bars, changed ones coloured. */
export function ChangesOverTime({ configuration }: ReportSectionProps) {
  const buckets = configuration.timeBuckets ?? [];
  const option = useMemo(() => timeBucketsOption(buckets), [buckets]);
  if (!buckets.length) return <p>No events in the report's time buckets yet.</p>;
  const size = bucketSizeLabel(buckets);
  return (
    <div class="changes-over-time">
      <p class="muted" data-metric="bucketSize">
        Events {size} (UTC): allow → deny in red, deny → allow in green, unchanged in grey.
      </p>
      {/* The sentence above says it in words; the swatches are for the eye. */}
      <ul class="chart-legend" aria-hidden="true">
        {TIME_BUCKET_SERIES.map((series) => (
          <li key={series.name}>
            <span class="swatch" style={{ background: series.color }} />
            {series.name}
          </li>
        ))}
      </ul>
      <Chart label={`Bar chart of verdicts over time, ${size}`} option={option} height={260} />
    </div>
  );
}
