import type { PreviewConfigurationReport, PreviewReport } from '@rollout/contracts';
import {
  EXPERIMENT_PATH,
  EXPERIMENT_RULES,
  LIVE_RULES,
  configurationOf,
  reportLine,
  whereToLook,
} from './scenario';

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

describe('where the demo says to look', () => {
  const lines = whereToLook({
    gateway: 'http://127.0.0.1:3000',
    token: 'tok',
    experimentEtag: 'E2',
  });
  const curls = lines
    .filter((line) => line.includes('curl '))
    .map((line) => line.split(': ').slice(1).join(': ').trim());

  it('prints curls that each carry the token, and the JSON type when they send a body (the commit was 415 without it)', () => {
    expect(curls).toHaveLength(3);
    for (const curl of curls) {
      expect(curl).toContain('-H "Authorization: Bearer tok"');
      // -G sends --data-urlencode as the query string of a GET: no body.
      const sendsBody = / -d | --data /.test(curl) && !curl.includes(' -G ');
      if (sendsBody)
        expect([curl, curl.includes('-H "Content-Type: application/json"')]).toEqual([curl, true]);
    }
    const commit = curls.find((curl) => curl.includes(':commit'));
    expect(commit).toBe(
      `curl -s -H "Authorization: Bearer tok" -H "Content-Type: application/json" -X POST http://127.0.0.1:3000${EXPERIMENT_PATH}:commit -d '{"etag":"E2"}'`,
    );
  });
});
