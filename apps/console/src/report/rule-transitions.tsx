import { useMemo } from 'preact/hooks';
import { Chart } from '../components/chart';
import { formatCount } from '../components/status';
import { sankeyOption } from './sankey';
import { ruleLabel } from '../changes/rule-words';
import type { ReportSectionProps } from './section';

/** Which rule of the experiment takes over the traffic each live rule decided (a Sankey diagram). */
export function RuleTransitions({ configuration, rules }: ReportSectionProps) {
  const transitions = configuration.ruleTransitions ?? [];
  const option = useMemo(() => sankeyOption(transitions, rules), [transitions, rules]);

  if (!transitions.length) return <p>No rule transitions recorded for this configuration yet.</p>;
  return (
    <>
      <Chart
        label="Sankey diagram: live deciding rule to experiment deciding rule, by events; links that change verdict in red (now denied) or green (now allowed), unchanged ones grey"
        option={option}
        height={Math.max(240, transitions.length * 36)}
      />
      <details>
        <summary>The same as a table</summary>
        <div class="table-scroll" tabIndex={0} role="region" aria-label="Rule transitions">
          <table class="striped">
            <thead>
              <tr>
                <th scope="col">Live rule</th>
                <th scope="col">Experiment rule</th>
                <th scope="col">Events</th>
                <th scope="col">Verdict</th>
              </tr>
            </thead>
            <tbody>
              {transitions.map((t) => (
                <tr key={`${ruleLabel(t.live)}>${ruleLabel(t.experiment)}`}>
                  <td>{ruleLabel(t.live)}</td>
                  <td>{ruleLabel(t.experiment)}</td>
                  <td>{formatCount(t.count)}</td>
                  <td
                    class={
                      t.live.action === t.experiment.action ? '' : `action-${t.experiment.action}`
                    }
                  >
                    {t.live.action === t.experiment.action
                      ? `still ${t.live.action}`
                      : `${t.live.action} → ${t.experiment.action}`}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
      {configuration.ruleTransitionsOmitted ? (
        <p class="muted">
          {formatCount(configuration.ruleTransitionsOmitted)} smaller transitions are left out.
        </p>
      ) : null}
    </>
  );
}
