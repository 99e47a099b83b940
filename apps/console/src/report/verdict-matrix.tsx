import { useMemo } from 'preact/hooks';
import { Chart } from '../components/chart';
import { formatCount } from '../components/status';
import type { ReportSectionProps } from './section';

/** Verdicts of the live policy (rows) against the experiment's (columns): the diagonal is unchanged. */
export function VerdictMatrix({ configuration: c }: ReportSectionProps) {
  const option = useMemo(
    () => ({
      animation: false,
      tooltip: { renderMode: 'richText' },
      grid: { left: 90, right: 20, top: 10, bottom: 40 },
      xAxis: { type: 'category', data: ['experiment allows', 'experiment denies'] },
      yAxis: { type: 'category', data: ['live denies', 'live allows'] },
      visualMap: {
        show: false,
        min: 0,
        max: Math.max(1, c.allowToDeny, c.denyToAllow, c.unchangedAllow, c.unchangedDeny),
        inRange: { color: ['#f3f6fb', '#2060c0'] },
      },
      series: [
        {
          type: 'heatmap',
          label: { show: true },
          data: [
            [0, 1, c.unchangedAllow],
            [1, 1, c.allowToDeny],
            [0, 0, c.denyToAllow],
            [1, 0, c.unchangedDeny],
          ],
        },
      ],
    }),
    [c.allowToDeny, c.denyToAllow, c.unchangedAllow, c.unchangedDeny],
  );
  return (
    <div class="grid report-pair">
      <div>
        <table class="verdict-matrix">
          <caption>
            <span data-metric="evaluated">{formatCount(c.evaluated)}</span> connections evaluated,{' '}
            <span data-metric="changed">{formatCount(c.changed)}</span> changed
          </caption>
          <thead>
            <tr>
              <td />
              <th scope="col">Experiment allows</th>
              <th scope="col">Experiment denies</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <th scope="row">Live allows</th>
              <td data-metric="unchangedAllow">{formatCount(c.unchangedAllow)}</td>
              <td data-metric="allowToDeny" class="changed">
                {formatCount(c.allowToDeny)} <small>allow → deny</small>
              </td>
            </tr>
            <tr>
              <th scope="row">Live denies</th>
              <td data-metric="denyToAllow" class="changed">
                {formatCount(c.denyToAllow)} <small>deny → allow</small>
              </td>
              <td data-metric="unchangedDeny">{formatCount(c.unchangedDeny)}</td>
            </tr>
          </tbody>
        </table>
      </div>
      <Chart
        label="Heat map of the verdict matrix, the same numbers as the table"
        option={option}
        height={220}
      />
    </div>
  );
}
