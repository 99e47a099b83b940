import {
  DEFAULT_BREAKER_MIN_EVALUATED,
  FirewallPolicyExperiment,
  PreviewConfigurationReport,
  PreviewReadiness,
  PreviewReport,
  ReadinessGate,
  ReadinessGateStatus,
  durationSeconds,
} from '@rollout/contracts';
import { createHash } from 'node:crypto';
import type { HeldExperiment } from './views';

export interface JudgedConfiguration<C = PreviewConfigurationReport> {
  experimentEtag: string;
  livePolicyEtag: string;
  report?: C;
}

/**
 * The counts that are evidence for committing the experiment as it is now: none once it was
 * updated since its preview; after a stop, the newest counted when this evaluator never saw it ACTIVE.
 */
export function judgedConfiguration<
  C extends { experimentEtag: string; livePolicyEtag: string } = PreviewConfigurationReport,
>(
  held: HeldExperiment | undefined,
  configurations: readonly C[],
): JudgedConfiguration<C> | undefined {
  if (!held) return undefined;
  if (held.state.previewMetadata?.state === 'ACTIVE') {
    if (held.liveEtag === undefined) return undefined;
    const report = configurations.find(
      (c) => c.experimentEtag === held.state.etag && c.livePolicyEtag === held.liveEtag,
    );
    return { experimentEtag: held.state.etag, livePolicyEtag: held.liveEtag, report };
  }
  if (held.lastEvent !== 'PreviewStopped') return undefined;
  const report =
    held.previewedEtag === undefined
      ? configurations[0]
      : configurations.find((c) => c.experimentEtag === held.previewedEtag);
  if (report)
    return { experimentEtag: report.experimentEtag, livePolicyEtag: report.livePolicyEtag, report };
  return held.previewedEtag !== undefined && held.liveEtag !== undefined
    ? { experimentEtag: held.previewedEtag, livePolicyEtag: held.liveEtag }
    : undefined;
}

export interface GateFacts {
  denyToAllowFrom: ReadonlyMap<string, number>;
}

const percent = (share: number) => `${Number((share * 100).toPrecision(6))}%`;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Validated when the experiment was written. */
export function gateKind(gate: ReadinessGate): keyof ReadinessGate {
  return Object.keys(gate)[0] as keyof ReadinessGate;
}

/** A capping gate needs one evaluated event to hold: no evidence is not evidence of safety. */
export function judgeGate(
  gate: ReadinessGate,
  report: PreviewConfigurationReport | undefined,
  facts: GateFacts,
): ReadinessGateStatus {
  const kind = gateKind(gate);
  const evaluated = report?.evaluated ?? 0;
  const none = evaluated === 0 ? ' (nothing evaluated yet)' : '';
  const status = (value: number, holds: boolean, description: string): ReadinessGateStatus => ({
    gate,
    kind,
    value,
    holds,
    description,
  });
  switch (kind) {
    case 'minPreviewDuration': {
      const limit = durationSeconds(gate.minPreviewDuration) as number;
      const span = report
        ? Math.max(
            0,
            Math.floor(
              (Date.parse(report.lastEventTime) - Date.parse(report.firstEventTime)) / 1000,
            ),
          )
        : 0;
      return status(
        span,
        span >= limit,
        `The previewed traffic spans ${span}s of event time; at least ${gate.minPreviewDuration} (${limit}s) required.`,
      );
    }
    case 'minEvaluated': {
      const limit = gate.minEvaluated as number;
      return status(
        evaluated,
        evaluated >= limit,
        `${plural(evaluated, 'event')} evaluated; at least ${limit} required.`,
      );
    }
    case 'maxAllowToDenyShare': {
      const limit = gate.maxAllowToDenyShare as number;
      const blocked = report?.allowToDeny ?? 0;
      const share = evaluated === 0 ? 0 : blocked / evaluated;
      return status(
        share,
        evaluated > 0 && share <= limit,
        `allow→deny is ${percent(share)} of evaluated (${blocked} of ${evaluated})${none}; at most ${percent(limit)} allowed.`,
      );
    }
    case 'noDenyToAllowFrom': {
      const range = gate.noDenyToAllowFrom as string;
      const opened = facts.denyToAllowFrom.get(range) ?? 0;
      // Changed events past the flow limit have no address: while any of them may be deny→allow, the range cannot be cleared.
      const unknown = (report?.changedOutsideFlows ?? 0) > 0 && (report?.denyToAllow ?? 0) > opened;
      const holds = evaluated > 0 && opened === 0 && !unknown;
      const more = unknown
        ? `; ${plural(report?.changedOutsideFlows ?? 0, 'changed event')} past the flow limit may add more`
        : '';
      return status(
        opened,
        holds,
        `${plural(opened, 'deny→allow event')} from ${range}${more}${none}; none allowed.`,
      );
    }
    case 'maxCompletenessLoss': {
      const limit = gate.maxCompletenessLoss as number;
      const c = report?.completeness;
      const loss = c
        ? c.deadLetteredMessages + c.trafficDroppedMessages + c.trafficDropUndetermined
        : 0;
      const parts = c
        ? ` (dead-lettered ${c.deadLetteredMessages}, dropped by TRAFFIC ${c.trafficDroppedMessages}, possibly dropped ${c.trafficDropUndetermined})`
        : '';
      return status(
        loss,
        evaluated > 0 && loss <= limit,
        `${plural(loss, 'message')} lost or possibly lost${parts}${none}; at most ${limit} allowed.`,
      );
    }
  }
}

export function readinessOf(
  experiment: FirewallPolicyExperiment,
  judged: JudgedConfiguration | undefined,
  facts: GateFacts,
): PreviewReadiness {
  const gates = (experiment.readinessGates ?? []).map((gate) => {
    if (judged) return judgeGate(gate, judged.report, facts);
    const kind = gateKind(gate);
    return {
      gate,
      kind,
      value: 0,
      holds: false,
      description:
        'The current version of the experiment has not been previewed (it was created or updated since).',
    };
  });
  return {
    currentExperimentEtag: experiment.etag,
    ...(judged
      ? { experimentEtag: judged.experimentEtag, livePolicyEtag: judged.livePolicyEtag }
      : {}),
    ready: gates.every((g) => g.holds),
    gates,
  };
}

const digest = (value: unknown) =>
  createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, 16);

/** `{what matters}.{counts}`: the first part changes with the judged configuration or a verdict, never with counts. */
export function reportEtagOf(
  report: Pick<PreviewReport, 'configurations'>,
  readiness: PreviewReadiness | undefined,
): string {
  const matters = digest([
    readiness?.experimentEtag ?? null,
    readiness?.livePolicyEtag ?? null,
    (readiness?.gates ?? []).map((g) => [g.gate, g.holds]),
  ]);
  const counts = digest([
    report.configurations.map((c) => [
      c.experimentEtag,
      c.livePolicyEtag,
      c.evaluated,
      c.allowToDeny,
      c.denyToAllow,
      c.unchangedAllow,
      c.unchangedDeny,
      c.changedOutsideFlows ?? 0,
      c.completeness
        ? [
            c.completeness.deadLetteredMessages,
            c.completeness.redeliveredEvents,
            c.completeness.trafficDroppedMessages,
            c.completeness.trafficDropUndetermined,
          ]
        : null,
    ]),
    (readiness?.gates ?? []).map((g) => g.value),
  ]);
  return `${matters}.${counts}`;
}

export interface PreviewRunCounts {
  evaluated: number;
  allowToDeny: number;
}

export function autoStopReason(
  experiment: FirewallPolicyExperiment,
  run: PreviewRunCounts,
  now: Date,
): string | undefined {
  const { breaker, stopAfter } = experiment;
  if (breaker) {
    const minEvaluated = breaker.minEvaluated ?? DEFAULT_BREAKER_MIN_EVALUATED;
    const share = run.evaluated === 0 ? 0 : run.allowToDeny / run.evaluated;
    if (run.evaluated >= minEvaluated && share > breaker.maxAllowToDenyShare) {
      return `breaker: allow→deny is ${percent(share)} of evaluated (${run.allowToDeny} of ${run.evaluated}), above ${percent(breaker.maxAllowToDenyShare)}`;
    }
  }
  if (stopAfter?.evaluatedEvents !== undefined && run.evaluated >= stopAfter.evaluatedEvents) {
    return `stopAfter: ${plural(run.evaluated, 'event')} evaluated, the limit is ${stopAfter.evaluatedEvents}`;
  }
  const limit = durationSeconds(stopAfter?.duration);
  const start = Date.parse(experiment.previewMetadata?.startTime ?? '');
  if (limit !== undefined && Number.isFinite(start) && now.getTime() - start >= limit * 1000) {
    return `stopAfter: previewed for ${Math.floor((now.getTime() - start) / 1000)}s, the limit is ${stopAfter?.duration}`;
  }
  return undefined;
}
