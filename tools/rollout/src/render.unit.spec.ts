import type { PreviewConfigurationReport, PreviewFlow } from '@rollout/contracts';
import Ajv from 'ajv';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { diffPolicies } from './diff';
import { normalisePolicy } from './policy-file';
import {
  EXIT,
  PLAN_SCHEMA_VERSION,
  PlanModel,
  checkThresholds,
  exitCodeOf,
  impactOf,
  sourcePrefix,
} from './plan-model';
import {
  MAX_GROUPS_SHOWN,
  MAX_MARKDOWN_DIFF_LINES,
  diffLines,
  renderJson,
  renderMarkdown,
  renderText,
} from './render';

const schema = JSON.parse(
  readFileSync(join(__dirname, '..', 'plan-output.schema.json'), 'utf8'),
) as object;
const validate = new Ajv({ allErrors: true, validateFormats: false }).compile(schema);

const live = normalisePolicy({
  displayName: 'edge',
  rules: [
    {
      priority: 100,
      direction: 'INGRESS',
      action: 'allow',
      match: {
        srcIpRanges: ['0.0.0.0/0'],
        layer4Configs: [{ ipProtocol: 'tcp', ports: ['22', '443'] }],
      },
    },
  ],
});
const file = normalisePolicy({
  displayName: 'edge',
  rules: [
    {
      priority: 100,
      direction: 'INGRESS',
      action: 'allow',
      match: { srcIpRanges: ['0.0.0.0/0'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['443'] }] },
    },
    {
      priority: 200,
      direction: 'INGRESS',
      action: 'deny',
      match: { srcIpRanges: ['0.0.0.0/0'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] },
    },
  ],
});

const flow = (
  srcIp: string,
  destPort: number,
  count: number,
  transition: PreviewFlow['transition'],
): PreviewFlow => ({
  experimentEtag: 'E1',
  livePolicyEtag: 'P1',
  direction: 'INGRESS',
  srcIp,
  destIp: '10.0.0.5',
  protocol: 'tcp',
  destPort,
  transition,
  liveResult: { action: 'allow', rulePriority: 100, implied: false },
  experimentResult: { action: 'deny', rulePriority: 200, implied: false },
  count,
  firstEventTime: '2026-12-01T00:00:00Z',
  lastEventTime: '2026-12-01T00:01:00Z',
  samples: [],
});
const configuration = {
  experimentEtag: 'E1',
  livePolicyEtag: 'P1',
  evaluated: 1000,
  changed: 30,
  allowToDeny: 30,
  denyToAllow: 0,
  flows: 3,
} as PreviewConfigurationReport;
const flows = [
  flow('198.51.100.7', 22, 20, 'ALLOW_TO_DENY'),
  flow('198.51.100.9', 22, 6, 'ALLOW_TO_DENY'),
  flow('2001:db8:0:1::7', 22, 4, 'ALLOW_TO_DENY'),
];

function model(thresholds = {}): PlanModel {
  const impact = [
    impactOf(
      'backtest',
      configuration,
      flows,
      {
        startTime: '2026-12-01T00:00:00Z',
        endTime: '2026-12-01T01:00:00Z',
        summary: 'Replayed 1000 messages.',
      },
      'operations/backtest-1',
    ),
  ];
  const m: PlanModel = {
    schemaVersion: PLAN_SCHEMA_VERSION,
    command: 'plan',
    policy: 'projects/acme/locations/global/firewallPolicies/edge',
    livePolicyEtag: 'P1',
    target: { file: 'edge.yaml' },
    changes: true,
    diff: diffPolicies(live, file),
    semantic: {
      nowDenied: ['tcp/22 from 0.0.0.0/0 is now denied'],
      nowAllowed: [],
      truncated: false,
    },
    experiment: {
      name: 'projects/acme/locations/global/firewallPolicies/edge/experiments/rollout',
      etag: 'E1',
    },
    impact,
    readiness: {
      ready: false,
      gates: [
        {
          kind: 'minEvaluated',
          holds: false,
          description: '1000 events evaluated; at least 5000 required.',
        },
      ],
      reportEtag: 'a.b',
    },
    thresholds: checkThresholds(impact, thresholds),
    planFile: 'rollout.plan.json',
    exitCode: 0,
  };
  m.exitCode = exitCodeOf(m);
  return m;
}

describe('one plan model, three renderings', () => {
  it('groups the changed flows by port and by source prefix, allow→deny apart from deny→allow', () => {
    const [impact] = model().impact;
    expect(impact).toMatchObject({
      changedShare: 0.03,
      newlyDeniedFlows: 3,
      newlyAllowedFlows: 0,
      flowsComplete: true,
    });
    expect(impact.byPort).toEqual([{ key: 'tcp/22', allowToDeny: 30, denyToAllow: 0, flows: 3 }]);
    expect(impact.bySourcePrefix).toEqual([
      { key: '198.51.100.0/24', allowToDeny: 26, denyToAllow: 0, flows: 2 },
      { key: '2001:db8:0:1::/64', allowToDeny: 4, denyToAllow: 0, flows: 1 },
    ]);
    expect(sourcePrefix('2001:db8::1')).toBe('2001:db8:0:0::/64');
  });

  it('prints JSON that its committed schema accepts, and is the model itself', () => {
    for (const m of [model(), model({ maxChangedShare: 0.01, maxNewlyDeniedFlows: 0 })]) {
      const json = JSON.parse(renderJson(m)) as unknown;
      expect(validate(json) ? [] : validate.errors).toEqual([]);
      expect(json).toEqual(m);
    }
  });

  it('says the same in text and Markdown: every diff line, the service sentences, the counts, the gates', () => {
    const m = model();
    const text = renderText(m, { colour: false });
    const markdown = renderMarkdown(m);
    for (const line of diffLines(m.diff)) {
      expect(text).toContain(line.text);
      expect(markdown).toContain(line.text);
    }
    for (const output of [text, markdown]) {
      expect(output).toContain('tcp/22 from 0.0.0.0/0 is now denied');
      expect(output).toContain(
        '1,000 events evaluated, 30 change verdict (3.00%): 30 allow→deny, 0 deny→allow',
      );
      expect(output).toContain('198.51.100.0/24');
      expect(output).toContain('1000 events evaluated; at least 5000 required.');
      expect(output).toContain('1 rule(s) to add, 1 to change, 0 to remove (0 unchanged).');
    }
    expect(text).toContain('  ~ rule 100 (INGRESS allow)');
    expect(text).toContain('          - 22');
    expect(text).toContain('  + rule 200 (INGRESS deny)');
    expect(markdown).toContain('```diff\n!');
    expect(markdown).toContain('| 198.51.100.0/24 | 26 | 0 | 2 |');
  });

  it('colours only when asked (a terminal), never in a file or a pipe', () => {
    expect(renderText(model(), { colour: false })).not.toContain('\x1b[');
    expect(renderText(model(), { colour: true })).toContain('\x1b[32m');
    expect(renderMarkdown(model())).not.toContain('\x1b[');
  });
});

describe('exit codes', () => {
  it('are 0 for no change, 2 for changes, 3 for changes past a threshold', () => {
    expect(model().exitCode).toBe(EXIT.CHANGES);
    expect(model({ maxChangedShare: 0.05, maxNewlyDeniedFlows: 3 }).exitCode).toBe(EXIT.CHANGES);
    const past = model({ maxChangedShare: 0.01, maxNewlyDeniedFlows: 3 });
    expect(past.exitCode).toBe(EXIT.THRESHOLD);
    expect(past.thresholds.filter((t) => t.exceeded).map((t) => t.name)).toEqual([
      'maxChangedShare',
    ]);
    expect(model({ maxNewlyDeniedFlows: 0 }).exitCode).toBe(EXIT.THRESHOLD);
    const same = { ...model(), diff: diffPolicies(live, live), thresholds: [] };
    expect(exitCodeOf(same)).toBe(EXIT.OK);
    expect(EXIT).toEqual({ OK: 0, ERROR: 1, CHANGES: 2, THRESHOLD: 3, SUBMITTED_FOR_REVIEW: 4 });
  });

  it('count a flow list cut short as at least one newly denied flow when its counts have allow→deny', () => {
    const cut = impactOf('backtest', configuration, [], { summary: '' });
    expect(cut).toMatchObject({ newlyDeniedFlows: 1, flowsComplete: false });
    const [result] = checkThresholds([cut], { maxNewlyDeniedFlows: 0 });
    expect(result).toMatchObject({ exceeded: true, lowerBound: true });
  });
});

describe('a large plan, said for people', () => {
  it('cuts the Markdown diff and the groups to what a pull-request comment holds, saying how much is left out', () => {
    const many = (action: 'allow' | 'deny') =>
      normalisePolicy({
        rules: Array.from({ length: 1000 }, (_, i) => ({
          priority: i,
          direction: 'INGRESS' as const,
          action,
          match: { srcIpRanges: [`10.0.${i % 256}.0/24`] },
        })),
      });
    const manyFlows = Array.from({ length: 50 }, (_, i) =>
      flow(`198.51.${i}.7`, 1000 + i, 1, 'ALLOW_TO_DENY'),
    );
    const big: PlanModel = {
      ...model(),
      diff: diffPolicies(many('allow'), many('deny')),
      impact: [impactOf('backtest', configuration, manyFlows, { summary: '' })],
    };
    const markdown = renderMarkdown(big);
    expect(markdown.length).toBeLessThan(65_536);
    expect(markdown).toContain(
      `_${2000 - MAX_MARKDOWN_DIFF_LINES} more diff lines are not shown here`,
    );
    expect(markdown).toContain(`| … ${50 - MAX_GROUPS_SHOWN} more (--json) |`);
    expect(JSON.parse(renderJson(big)).impact[0].byPort).toHaveLength(50);
  });
});
