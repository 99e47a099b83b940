import { formatCount, formatTime } from '../components/status';
import type { ReportSectionProps } from './section';

/** Whether the counts are all of the policy's traffic, and what they miss (preview.v1 1.3.0). */
export function Completeness({ configuration }: ReportSectionProps) {
  const completeness = configuration.completeness;
  if (!completeness)
    return (
      <p>
        The evaluator does not say how complete these counts are (it predates preview.v1 1.3.0).
      </p>
    );
  return (
    <>
      <p class={completeness.complete ? 'gate-passed' : 'error'} data-metric="complete">
        {completeness.summary}
      </p>
      <div class="table-scroll" tabIndex={0} role="region" aria-label="What the counts may miss">
        <table class="striped">
          <tbody>
            <tr>
              <th scope="row">Dead-lettered messages of this policy</th>
              <td>
                {formatCount(completeness.deadLetteredMessages)}
                {completeness.deadLettered.length
                  ? ` (${completeness.deadLettered.map((d) => `${d.reason} ${formatCount(d.messages)}`).join(', ')})`
                  : ''}
              </td>
            </tr>
            <tr>
              <th scope="row">Events redelivered (counted once)</th>
              <td>{formatCount(completeness.redeliveredEvents)}</td>
            </tr>
            <tr>
              <th scope="row">Traffic dropped unread (every policy)</th>
              <td>
                {formatCount(completeness.trafficDroppedMessages)}
                {completeness.trafficDropUndetermined
                  ? `, and ${formatCount(completeness.trafficDropUndetermined)} perhaps`
                  : ''}
              </td>
            </tr>
            <tr>
              <th scope="row">Evaluator backlog</th>
              <td>
                {completeness.lag
                  ? `${formatCount(completeness.lag.pendingMessages)} messages${completeness.lag.oldestPendingTime ? `, oldest published ${formatTime(completeness.lag.oldestPendingTime)}` : ''}`
                  : 'unknown'}
              </td>
            </tr>
          </tbody>
        </table>
      </div>
    </>
  );
}
