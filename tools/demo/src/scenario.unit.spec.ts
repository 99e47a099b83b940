import type { PreviewConfigurationReport, PreviewReport } from '@rollout/contracts';
import { EXPERIMENT_RULES, LIVE_RULES, configurationOf, reportLine } from './scenario';

describe('the demo scenario', () => {
  it('tightens the live policy: the legacy SSH rule goes and Postgres narrows, the rest stays', () => {
    expect(LIVE_RULES.map((rule) => rule.priority)).toEqual([100, 200, 300, 400, 500]);
    expect(EXPERIMENT_RULES.map((rule) => rule.priority)).toEqual([100, 200, 400, 500]);
    expect(EXPERIMENT_RULES.find((rule) => rule.priority === 400)?.match.srcIpRanges).toEqual([
      '10.20.1.0/24',
    ]);
    expect(EXPERIMENT_RULES.filter((rule) => rule.priority !== 400)).toEqual(
      LIVE_RULES.filter((rule) => rule.priority !== 300 && rule.priority !== 400),
    );
  });

  it('reads the configuration of this experiment version, and says what it shows', () => {
    const configuration = {
      experimentEtag: 'E2',
      evaluated: 1200,
      changed: 150,
      allowToDeny: 150,
      denyToAllow: 0,
    } as PreviewConfigurationReport;
    const report: PreviewReport = {
      name: 'x',
      configurations: [configuration, { ...configuration, experimentEtag: 'E1' }],
    };
    expect(configurationOf(report, 'E2')).toBe(configuration);
    expect(configurationOf(report, 'E3')).toBeUndefined();
    expect(reportLine(configuration)).toBe(
      '1,200 connections evaluated, 150 would change (150 allowed today would be denied, 0 denied today would be allowed)',
    );
    expect(reportLine(undefined)).toBe('no traffic evaluated yet');
  });
});
