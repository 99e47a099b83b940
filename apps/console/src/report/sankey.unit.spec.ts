import type { RuleTransition } from '@rollout/contracts';
import { sankeyOption } from './sankey';
import { VERDICT_COLOURS } from './time-buckets';

describe('the Sankey of rule transitions', () => {
  const transitions: RuleTransition[] = [
    {
      live: { action: 'allow', rulePriority: 1000, implied: false },
      experiment: { action: 'deny', rulePriority: 900, implied: false },
      count: 30,
    },
    {
      live: { action: 'allow', rulePriority: 1000, implied: false },
      experiment: { action: 'allow', rulePriority: 1000, implied: false },
      count: 20,
    },
    {
      live: { action: 'deny', rulePriority: null, implied: true },
      experiment: { action: 'deny', rulePriority: null, implied: true },
      count: 10,
    },
  ];
  const option = sankeyOption(transitions, {
    experiment: [
      {
        priority: 900,
        direction: 'INGRESS',
        action: 'deny',
        match: {
          srcIpRanges: ['0.0.0.0/0'],
          layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }],
        },
      },
    ],
  });
  const [series] = option.series;

  it('colours changed links by their new verdict and unchanged ones grey', () => {
    expect(series.links.map((l) => [l.changed, l.lineStyle.color])).toEqual([
      [true, VERDICT_COLOURS.deny],
      [false, VERDICT_COLOURS.unchanged],
      [false, VERDICT_COLOURS.unchanged],
    ]);
  });

  it('says on hover what each node’s rule matches', () => {
    const described = Object.fromEntries(series.data.map((n) => [n.name, n.description]));
    expect(described['experiment rule 900 (deny)']).toBe(
      'experiment rule 900 (deny): matches INGRESS deny tcp/22 from 0.0.0.0/0 to anywhere',
    );
    expect(described['live implied deny']).toMatch(/no rule matches/);
    expect(described['live rule 1000 (allow)']).toMatch(/not held/);
    expect(series.data.find((n) => n.name === 'live rule 1000 (allow)')?.itemStyle.color).toBe(
      VERDICT_COLOURS.allow,
    );
  });
});
