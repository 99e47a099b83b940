import {
  PreviewConfigurationReport,
  PreviewCoverage,
  PreviewEvaluatorLag,
  RuleCount,
} from '@rollout/contracts';
import {
  HOUR_MS,
  MINUTE_MS,
  completenessOf,
  reportTimeBuckets,
  ruleCounts,
  ruleTransitionsOf,
} from '@rollout/domain/preview';
import { ConfigurationRow, ReportDetails, RuleCountRow } from './report-rows';

/** The rule counts of one side (0: live, 1: experiment) of a configuration, as the report shows them. */
export function ruleCountsOf(
  rules: readonly RuleCountRow[],
  id: number,
  side: number,
): RuleCount[] {
  return ruleCounts(
    rules
      .filter((r) => r.configuration_id === id && r.side === side)
      .map((r) => ({ priority: r.priority, action: r.action, count: Number(r.count) })),
  );
}

/** One configuration of previewReport, from its row and the details read with it. */
export function configurationReport(
  c: ConfigurationRow,
  {
    rules,
    sources,
    ports,
    transitions,
    buckets,
    deadLetters,
    disagreements,
    disagreementFlows,
  }: ReportDetails,
  lag: PreviewEvaluatorLag | undefined,
  coverage: PreviewCoverage | undefined,
): PreviewConfigurationReport {
  const mine = <T extends { configuration_id: number }>(rows: T[]) =>
    rows.filter((r) => r.configuration_id === c.id);
  const side = (s: number) => ruleCountsOf(rules, c.id, s);
  return {
    experimentEtag: c.experiment_etag,
    livePolicyEtag: c.live_policy_etag,
    evaluated: Number(c.evaluated),
    changed: Number(c.changed),
    allowToDeny: Number(c.allow_to_deny),
    denyToAllow: Number(c.deny_to_allow),
    unchangedAllow: Number(c.unchanged_allow),
    unchangedDeny: Number(c.unchanged_deny),
    liveRules: side(0),
    experimentRules: side(1),
    topChangedSources: mine(sources).map((s) => ({ srcIp: s.src_ip, count: Number(s.count) })),
    topChangedDestinationPorts: mine(ports).map((p) => ({
      protocol: p.protocol,
      destPort: p.dest_port,
      count: Number(p.count),
    })),
    flows: c.flows,
    changedOutsideFlows: Number(c.changed_outside_flows),
    ...ruleTransitionsOf(
      mine(transitions).map((t) => ({
        livePriority: t.live_priority,
        liveAction: t.live_action,
        experimentPriority: t.experiment_priority,
        experimentAction: t.experiment_action,
        count: Number(t.count),
      })),
    ),
    timeBuckets: reportTimeBuckets(
      mine(buckets).map((b) => ({
        startMs: b.start_time.getTime(),
        widthMs: b.width_seconds === 60 ? MINUTE_MS : HOUR_MS,
        evaluated: Number(b.evaluated),
        changed: Number(b.changed),
        allowToDeny: Number(b.allow_to_deny),
        denyToAllow: Number(b.deny_to_allow),
      })),
      c.last_event_time.getTime(),
    ),
    disagreements: mine(disagreements).map((d) => ({
      experiment: d.other_experiment,
      experimentEtag: d.other_etag,
      events: Number(d.events),
      topFlows: mine(disagreementFlows)
        .filter((f) => f.other_experiment === d.other_experiment && f.other_etag === d.other_etag)
        .map((f) => ({
          direction: f.direction,
          srcIp: f.src_ip,
          destIp: f.dest_ip,
          protocol: f.protocol,
          ...(f.dest_port >= 0 ? { destPort: f.dest_port } : {}),
          action: f.action,
          otherAction: f.action === 'allow' ? 'deny' : 'allow',
          count: Number(f.count),
        })),
      eventsOutsideFlows: Number(d.outside),
    })),
    ...(coverage ? { coverage } : {}),
    completeness: completenessOf({
      deadLettered: mine(deadLetters).map((d) => ({
        reason: d.reason,
        messages: Number(d.messages),
      })),
      redeliveredEvents: Number(c.redelivered),
      trafficDroppedMessages: Number(c.dropped),
      trafficDropUndetermined: Number(c.undetermined),
      lag,
    }),
    firstEventTime: c.first_event_time.toISOString(),
    lastEventTime: c.last_event_time.toISOString(),
  };
}
