import { useMemo } from 'preact/hooks';
import { Chart } from '../components/chart';
import { formatCount } from '../components/status';
import { ruleLabel, type ReportSectionProps } from './section';

/** Which rule of the experiment takes over the traffic each live rule decided (a Sankey diagram). */
export function RuleTransitions({ configuration }: ReportSectionProps) {
  const transitions = configuration.ruleTransitions ?? [];
  const option = useMemo(() => {
    const live = (label: string) => `live ${label}`;
    const experiment = (label: string) => `experiment ${label}`;
    const links = transitions.map((t) => ({
      source: live(ruleLabel(t.live)),
      target: experiment(ruleLabel(t.experiment)),
      value: t.count,
    }));
    const names = [...new Set(links.flatMap((link) => [link.source, link.target]))];
    return {
      animation: false,
      tooltip: { renderMode: 'richText' },
      series: [
        {
          type: 'sankey',
          left: 10,
          right: 10,
          layoutIterations: 0,
          emphasis: { focus: 'adjacency' },
          // The experiment's rules are labelled on their left, so no label runs off a phone's screen.
          levels: [{ depth: 1, label: { position: 'left' } }],
          data: names.map((name) => ({ name })),
          links,
        },
      ],
    };
  }, [transitions]);

  if (!transitions.length) return <p>No rule transitions recorded for this configuration yet.</p>;
  return (
    <>
      <Chart
        label="Sankey diagram: live deciding rule to experiment deciding rule, by events"
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
              </tr>
            </thead>
            <tbody>
              {transitions.map((t) => (
                <tr key={`${ruleLabel(t.live)}>${ruleLabel(t.experiment)}`}>
                  <td>{ruleLabel(t.live)}</td>
                  <td>{ruleLabel(t.experiment)}</td>
                  <td>{formatCount(t.count)}</td>
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
