/**
 * Reads every shape of PREVIEW_LOGS message for the evaluator bench's freshness probe: the
 * per-policy log, compact (CompactPolicyPreviewLog, the default since preview.v1 1.10.0) or as
 * PolicyPreviewLogBatch (one record per event, the experiments and their etags once per message),
 * and the deprecated per-experiment PreviewLogBatch. All come down to which state each verdict
 * was evaluated against: (experiment, experimentEtag, livePolicyEtag, trafficEventId).
 */
import {
  COMPACT_POLICY_LOG_SUFFIX,
  CompactPolicyPreviewLog,
  PreviewLogBatch,
} from '@rollout/contracts';

/** One experiment's verdict on one event, as far as the probe needs it. */
export interface LoggedVerdict {
  /** The experiment's id (the last segment of its resource name). */
  experiment: string;
  experimentEtag: string;
  livePolicyEtag: string;
  trafficEventId: string;
}

/** The payload of a per-policy PREVIEW_LOGS message (only the fields the probe reads). */
export interface PolicyPreviewLog {
  firewallPolicy: string;
  livePolicyEtag: string;
  experiments: { experiment: string; experimentEtag: string }[];
  events: { trafficEventId: string }[];
}

export type LogShape = 'compact' | 'policy' | 'experiment';

const LOGS = 'preview.v1.logs.';
const lastSegment = (name: string) => name.slice(name.lastIndexOf('/') + 1);

/**
 * The shape of a PREVIEW_LOGS subject (namespaced or not) by its tokens after
 * `preview.v1.logs.`: 5 ending `_policy.compact` for the compact per-policy log, 3 for the
 * per-policy log as PolicyPreviewLogBatch, 4 for the per-experiment records.
 */
export function logShape(subject: string): LogShape | undefined {
  const at = subject.indexOf(LOGS);
  if (at < 0) return undefined;
  const tokens = subject.slice(at + LOGS.length).split('.').length;
  if (tokens === 5) return subject.endsWith(COMPACT_POLICY_LOG_SUFFIX) ? 'compact' : undefined;
  return tokens === 3 ? 'policy' : tokens === 4 ? 'experiment' : undefined;
}

/** The verdicts one PREVIEW_LOGS message carries; none for a subject of another shape. */
export function loggedVerdicts(
  subject: string,
  payload: unknown,
): { shape: LogShape; verdicts: LoggedVerdict[] } | undefined {
  const shape = logShape(subject);
  if (shape === 'compact') {
    const log = payload as CompactPolicyPreviewLog;
    return {
      shape,
      verdicts: log.events.flatMap(([, trafficEventId]) =>
        log.experiments.map((e) => ({
          experiment: lastSegment(e.experiment),
          experimentEtag: e.experimentEtag,
          livePolicyEtag: log.livePolicyEtag,
          trafficEventId,
        })),
      ),
    };
  }
  if (shape === 'policy') {
    const log = payload as PolicyPreviewLog;
    const experiments = log.experiments.map((e) => ({
      experiment: lastSegment(e.experiment),
      experimentEtag: e.experimentEtag,
    }));
    return {
      shape,
      verdicts: log.events.flatMap((event) =>
        experiments.map((e) => ({
          ...e,
          livePolicyEtag: log.livePolicyEtag,
          trafficEventId: event.trafficEventId,
        })),
      ),
    };
  }
  if (shape === 'experiment') {
    const experiment = subject.slice(subject.lastIndexOf('.') + 1);
    return {
      shape,
      verdicts: (payload as PreviewLogBatch).records.map((r) => ({
        experiment,
        experimentEtag: r.experimentEtag,
        livePolicyEtag: r.livePolicyEtag,
        trafficEventId: r.trafficEventId,
      })),
    };
  }
  return undefined;
}

/** The shapes in the order they are preferred: each carries every verdict of the ones after it. */
const PREFERRED: readonly LogShape[] = ['compact', 'policy', 'experiment'];

/**
 * Collects the verdicts of a run of messages by experiment id. An evaluator that publishes more
 * than one shape logs every verdict more than once: the compact log is read when any message
 * has it, else the per-policy PolicyPreviewLogBatch, else the per-experiment records.
 */
export class VerdictsByExperiment {
  private readonly byShape: Record<LogShape, Map<string, LoggedVerdict[]>> = {
    compact: new Map(),
    policy: new Map(),
    experiment: new Map(),
  };
  private readonly seen = new Set<LogShape>();

  add(subject: string, payload: () => unknown): void {
    if (!logShape(subject)) return;
    const read = loggedVerdicts(subject, payload());
    if (!read) return;
    this.seen.add(read.shape);
    const map = this.byShape[read.shape];
    for (const verdict of read.verdicts) {
      const list = map.get(verdict.experiment);
      if (list) list.push(verdict);
      else map.set(verdict.experiment, [verdict]);
    }
  }

  /** The verdicts by experiment id, of the preferred shape seen. */
  result(): Map<string, LoggedVerdict[]> {
    return this.byShape[PREFERRED.find((shape) => this.seen.has(shape)) ?? 'experiment'];
  }
}
