import { useMemo } from 'preact/hooks';
import { Chart } from '../components/chart';
import type { ReportSectionProps } from './section';
import { bucketSizeLabel, timeBucketsOption } from './time-buckets';

/** When verdicts change: events per time bucket as stacked bars, changed ones coloured. */
export function ChangesOverTime({ configuration }: ReportSectionProps) {
  const buckets = configuration.timeBuckets ?? [];
  const option = useMemo(() => timeBucketsOption(buckets), [buckets]);
  if (!buckets.length) return <p>No events in the report's time buckets yet.</p>;
  const size = bucketSizeLabel(buckets);
  return (
    <>
      <p class="muted" data-metric="bucketSize">
        Events {size} (UTC): allow → deny in red, deny → allow in green, unchanged in grey.
      </p>
      <Chart label={`Bar chart of verdicts over time, ${size}`} option={option} height={260} />
    </>
  );
}
