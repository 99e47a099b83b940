import { PREVIEW_REPORT_TOP } from '@rollout/contracts';
import type {
  ChangedPrefix,
  FlowConnection,
  ExperimentAnalysis,
  PreviewConfigurationReport,
  PreviewDisagreement,
  PreviewEvaluatorLag,
  PreviewReport,
  RuleCount,
} from '@rollout/contracts';
import { completenessOf } from './completeness';
import { coverageOf, liveRuleUsageOf } from './coverage';
import { judgedConfiguration, readinessOf, reportEtagOf } from './readiness';
import type { HeldExperiment, HeldVersions } from './views';
import { type CountedBucket, reportTimeBuckets } from './time-buckets';
import { type TransitionTally, ruleCounts, ruleTransitionsOf } from './totals';

export interface ConfigurationVersions {
  experimentEtag: string;
  livePolicyEtag: string;
}

export interface ConfigurationRow extends ConfigurationVersions {
  id: number;
  evaluated: number;
  changed: number;
  allowToDeny: number;
  denyToAllow: number;
  unchangedAllow: number;
  unchangedDeny: number;
  flows: number;
  changedOutsideFlows: number;
  redeliveredEvents: number;
  trafficDroppedMessages: number;
  trafficDropUndetermined: number;
  firstEventTime: Date;
  lastEventTime: Date;
}

type Of<T> = T & { configurationId: number };

/** `side` 0 is the live policy's rule, 1 the experiment's. */
export type RuleCountRow = Of<{ side: 0 | 1; priority: number; action: string; count: number }>;

export interface ReportRows {
  configurations: ConfigurationRow[];
  ruleCounts: RuleCountRow[];
  topSources: Of<{ srcIp: string; count: number }>[];
  topPorts: Of<{ protocol: string; destPort: number; count: number }>[];
  topPrefixes: Of<ChangedPrefix & { side: 'source' | 'destination' }>[];
  transitions: Of<TransitionTally>[];
  timeBuckets: Of<CountedBucket>[];
  deadLetters: Of<{ reason: string; messages: number }>[];
  disagreements: Of<PreviewDisagreement>[];
  coverageFlows?: Of<{ flows: (FlowConnection<string> & { count: number })[] }>;
  denyToAllowFrom: ReadonlyMap<string, number>;
}

export interface ReportReading {
  coverageOf?: ConfigurationVersions;
  denyToAllowFrom?: {
    ranges: readonly string[];
    judged<C extends ConfigurationVersions>(configurations: readonly C[]): C | undefined;
  };
}

export function reportReading(
  held: HeldExperiment | undefined,
  versions: HeldVersions | undefined,
): ReportReading {
  const ranges = [
    ...new Set(
      (held?.state.readinessGates ?? []).flatMap((g) =>
        g.noDenyToAllowFrom ? [g.noDenyToAllowFrom] : [],
      ),
    ),
  ];
  return {
    ...(versions
      ? {
          coverageOf: {
            experimentEtag: versions.experimentEtag,
            livePolicyEtag: versions.liveEtag,
          },
        }
      : {}),
    ...(held && ranges.length > 0
      ? {
          denyToAllowFrom: {
            ranges,
            judged: (configurations) => judgedConfiguration(held, configurations)?.report,
          },
        }
      : {}),
  };
}

export interface ReportInputs {
  held: HeldExperiment | undefined;
  coverage?: { versions: HeldVersions; analysis: ExperimentAnalysis };
  /** Undefined when it could not be read. */
  lag: PreviewEvaluatorLag | undefined;
}

export function buildReport(name: string, rows: ReportRows, inputs: ReportInputs): PreviewReport {
  const sections = {
    ruleCounts: byConfiguration(rows.ruleCounts),
    topSources: byConfiguration(rows.topSources),
    topPorts: byConfiguration(rows.topPorts),
    topPrefixes: byConfiguration(rows.topPrefixes),
    transitions: byConfiguration(rows.transitions),
    timeBuckets: byConfiguration(rows.timeBuckets),
    deadLetters: byConfiguration(rows.deadLetters),
    disagreements: byConfiguration(rows.disagreements),
  };
  const configurations = rows.configurations.map((c): PreviewConfigurationReport => {
    const mine = <T>(section: ReadonlyMap<number, T[]>): T[] => section.get(c.id) ?? [];
    const rules = mine(sections.ruleCounts);
    const experimentRules = ruleCountsOf(rules, 1);
    const liveRules = ruleCountsOf(rules, 0);
    const covered = rows.coverageFlows?.configurationId === c.id ? rows.coverageFlows : undefined;
    const inForce = inputs.coverage && covered;
    const prefixes = mine(sections.topPrefixes);
    const prefixesOf = (side: 'source' | 'destination'): ChangedPrefix[] =>
      prefixes
        .filter((p) => p.side === side)
        .map(({ prefix, prefixLength, count, flows, addresses }) => ({
          prefix,
          prefixLength,
          count,
          flows,
          addresses,
        }));
    const coverage =
      inputs.coverage && inForce
        ? coverageOf({
            analysis: inputs.coverage.analysis,
            experimentRules: inputs.coverage.versions.experimentRules,
            flows: covered.flows,
            changedOutsideFlows: c.changedOutsideFlows,
            experimentRuleCounts: experimentRules,
          })
        : undefined;
    return {
      experimentEtag: c.experimentEtag,
      livePolicyEtag: c.livePolicyEtag,
      evaluated: c.evaluated,
      changed: c.changed,
      allowToDeny: c.allowToDeny,
      denyToAllow: c.denyToAllow,
      unchangedAllow: c.unchangedAllow,
      unchangedDeny: c.unchangedDeny,
      liveRules,
      experimentRules,
      topChangedSources: mine(sections.topSources).map((s) => ({
        srcIp: s.srcIp,
        count: s.count,
      })),
      topChangedDestinationPorts: mine(sections.topPorts).map((p) => ({
        protocol: p.protocol,
        destPort: p.destPort,
        count: p.count,
      })),
      topChangedSourcePrefixes: prefixesOf('source'),
      topChangedDestinationPrefixes: prefixesOf('destination'),
      flows: c.flows,
      changedOutsideFlows: c.changedOutsideFlows,
      ...ruleTransitionsOf(mine(sections.transitions)),
      timeBuckets: reportTimeBuckets(mine(sections.timeBuckets), c.lastEventTime.getTime()),
      ...disagreementsOf(mine(sections.disagreements)),
      ...(coverage ? { coverage } : {}),
      ...(inputs.coverage && inForce
        ? {
            liveRuleUsage: liveRuleUsageOf({
              livePolicyEtag: c.livePolicyEtag,
              liveRules: inputs.coverage.versions.liveRules,
              liveRuleCounts: liveRules,
            }),
          }
        : {}),
      completeness: completenessOf({
        deadLettered: mine(sections.deadLetters).map((d) => ({
          reason: d.reason,
          messages: d.messages,
        })),
        redeliveredEvents: c.redeliveredEvents,
        trafficDroppedMessages: c.trafficDroppedMessages,
        trafficDropUndetermined: c.trafficDropUndetermined,
        lag: inputs.lag,
      }),
      firstEventTime: c.firstEventTime.toISOString(),
      lastEventTime: c.lastEventTime.toISOString(),
    };
  });
  const report = { name, configurations };
  if (!inputs.held) return { ...report, reportEtag: reportEtagOf(report, undefined) };
  const readiness = readinessOf(
    inputs.held.state,
    judgedConfiguration(inputs.held, configurations),
    {
      denyToAllowFrom: rows.denyToAllowFrom,
    },
  );
  return { ...report, readiness, reportEtag: reportEtagOf(report, readiness) };
}

/** At least one, so a page always moves on. */
export function configurationsWithin(
  configurations: readonly PreviewConfigurationReport[],
  bytes: number,
): number {
  let total = 0;
  for (let i = 0; i < configurations.length; i++) {
    total += Buffer.byteLength(JSON.stringify(configurations[i]));
    if (total > bytes) return Math.max(1, i);
  }
  return configurations.length;
}

/** Top N and a count of the rest, so hundreds of experiments over a life still fit in a reply. */
function disagreementsOf(
  rows: readonly Of<PreviewDisagreement>[],
): Pick<PreviewConfigurationReport, 'disagreements' | 'disagreementsOmitted'> {
  const disagreements = rows
    .slice(0, PREVIEW_REPORT_TOP)
    .map(({ configurationId: _, ...disagreement }) => disagreement);
  const omitted = rows.length - disagreements.length;
  return omitted > 0 ? { disagreements, disagreementsOmitted: omitted } : { disagreements };
}

/** Transitions' margins plus `legacy` rule counts stored before transitions were (no longer written). */
export function ruleCountMargins(
  transitions: readonly Of<TransitionTally>[],
  legacy: readonly RuleCountRow[] = [],
): RuleCountRow[] {
  const sums = new Map<string, RuleCountRow>();
  const add = (row: RuleCountRow) => {
    const key = `${row.configurationId} ${row.side} ${row.priority} ${row.action}`;
    const sum = sums.get(key);
    if (sum) sum.count += row.count;
    else sums.set(key, { ...row });
  };
  for (const t of transitions) {
    const { configurationId, count } = t;
    add({ configurationId, side: 0, priority: t.livePriority, action: t.liveAction, count });
    add({
      configurationId,
      side: 1,
      priority: t.experimentPriority,
      action: t.experimentAction,
      count,
    });
  }
  legacy.forEach(add);
  return [...sums.values()];
}

function ruleCountsOf(rows: readonly RuleCountRow[], side: 0 | 1): RuleCount[] {
  return ruleCounts(rows.filter((r) => r.side === side));
}

function byConfiguration<T extends { configurationId: number }>(
  rows: readonly T[],
): Map<number, T[]> {
  const grouped = new Map<number, T[]>();
  for (const row of rows) {
    const list = grouped.get(row.configurationId);
    if (list) list.push(row);
    else grouped.set(row.configurationId, [row]);
  }
  return grouped;
}
