import { formatCount } from '../components/status';
import { idOf } from '../names';
import type { ReportSectionProps } from './section';

/** Other ACTIVE experiments of the policy that decide some of these events differently (preview.v1 1.4.0). */
export function Disagreements({ configuration }: ReportSectionProps) {
  const disagreements = configuration.disagreements ?? [];
  if (!disagreements.length)
    return <p>No other active experiment of this policy decides these events differently.</p>;
  return (
    <>
      {disagreements.map((d) => (
        <div
          key={`${d.experiment}|${d.experimentEtag}`}
          class="table-scroll"
          tabIndex={0}
          role="region"
          aria-label={`Disagreements with ${idOf(d.experiment)}`}
        >
          <table class="striped">
            <caption>
              {idOf(d.experiment)} (version {d.experimentEtag}) decides {formatCount(d.events)}{' '}
              events differently
              {d.eventsOutsideFlows
                ? `, ${formatCount(d.eventsOutsideFlows)} of them in flows not kept`
                : ''}
            </caption>
            <thead>
              <tr>
                <th scope="col">Connection</th>
                <th scope="col">This experiment</th>
                <th scope="col">The other</th>
                <th scope="col">Events</th>
              </tr>
            </thead>
            <tbody>
              {d.topFlows.map((flow) => (
                <tr
                  key={[flow.direction, flow.srcIp, flow.destIp, flow.protocol, flow.destPort].join(
                    '|',
                  )}
                >
                  <td>
                    {flow.direction} {flow.srcIp} → {flow.destIp} {flow.protocol}
                    {flow.destPort === undefined ? '' : `:${flow.destPort}`}
                  </td>
                  <td class={`action-${flow.action}`}>{flow.action}</td>
                  <td class={`action-${flow.otherAction}`}>{flow.otherAction}</td>
                  <td>{formatCount(flow.count)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </>
  );
}
