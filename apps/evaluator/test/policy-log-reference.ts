import type {
  PolicyPreviewLogBatch,
  PolicyPreviewLogRecord,
  PreviewVerdict,
  TrafficEvent,
} from '@rollout/contracts';
import { PREVIEW_LOG_PREFIX } from '@rollout/contracts';
import { Outcome, PolicyView, connectionOf, policyLogKeys } from '@rollout/domain/preview';

/**
 * A policy's preview-log message as an object, built plainly: what the domain's JSON pieces
 * (policyLogMessages) must write and what a compact message (compactPolicyLogMessages) must
 * expand to (expandCompactPolicyPreviewLog), the reference the log specs check their output against.
 */
export function policyLogBatch(
  view: PolicyView,
  events: readonly TrafficEvent[],
  outcomes: readonly Outcome[],
): PolicyPreviewLogBatch {
  const { idPrefix } = policyLogKeys(view);
  const verdict = (v: PreviewVerdict): PreviewVerdict => ({
    action: v.action,
    rulePriority: v.rulePriority,
    implied: v.implied,
  });
  return {
    logPrefix: PREVIEW_LOG_PREFIX,
    firewallPolicy: view.name,
    livePolicyEtag: view.etag,
    experiments: view.active.map((t) => ({ experiment: t.name, experimentEtag: t.etag })),
    events: events.map((event, i): PolicyPreviewLogRecord => ({
      id: `${idPrefix}.${event.id}`,
      trafficEventId: event.id,
      eventTime: event.time,
      connection: connectionOf(event),
      liveResult: verdict(outcomes[i].live),
      experimentResults: outcomes[i].experiments.map((v) => ({
        ...verdict(v),
        changed: v.action !== outcomes[i].live.action,
      })),
    })),
  };
}
