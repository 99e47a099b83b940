import { useMemo } from 'preact/hooks';
import { Chart } from '../components/chart';
import type { ReportSectionProps } from './section';

/** When verdicts change: changed events per time bucket (minutes, hours for older traffic). */
export function ChangesOverTime({ configuration }: ReportSectionProps) {
  const buckets = configuration.timeBuckets ?? [];
  const option = useMemo(() => {
    const series = (
      name: string,
      pick: (b: (typeof buckets)[number]) => number,
      yAxisIndex = 0,
    ) => ({
      name,
      type: 'line',
      showSymbol: buckets.length < 40,
      yAxisIndex,
      data: buckets.map((b) => [b.startTime, pick(b)]),
    });
    return {
      animationDurationUpdate: 300,
      tooltip: { trigger: 'axis', renderMode: 'richText' },
      legend: { top: 0 },
      grid: { left: 50, right: 50, top: 40, bottom: 60 },
      xAxis: { type: 'time' },
      yAxis: [
        { type: 'value', name: 'changed', minInterval: 1 },
        { type: 'value', name: 'evaluated', minInterval: 1, splitLine: { show: false } },
      ],
      dataZoom: [{ type: 'inside' }, { type: 'slider', height: 20, bottom: 10 }],
      series: [
        series('allow → deny', (b) => b.allowToDeny),
        series('deny → allow', (b) => b.denyToAllow),
        series('evaluated', (b) => b.evaluated, 1),
      ],
    };
  }, [buckets]);

  if (!buckets.length) return <p>No events in the report's time buckets yet.</p>;
  const width = buckets.some((b) => b.width === 'HOUR')
    ? 'minutes for the last hours, hours before'
    : 'by minute';
  return <Chart label={`Line chart of changed verdicts over time, ${width}`} option={option} />;
}
