import { PREVIEW_LOG_PREFIX, PreviewConnection, PreviewLogRecord, PreviewVerdict, TrafficEvent } from '@rollout/contracts';
import { createHash } from 'node:crypto';
import type { ActiveExperiment, PolicyView } from './state';

/**
 * A log record's id: a function of the traffic event id, the experiment and the experiment's
 * etag only, so evaluating the same event again (a redelivery, another replica, a restart)
 * gives the same id, whichever live policy version was in force.
 */
export function previewRecordId(trafficEventId: string, experiment: string, experimentEtag: string): string {
  return createHash('sha256').update(`${experiment}\n${experimentEtag}\n${trafficEventId}`).digest('base64url').slice(0, 32);
}

/** The evaluated connection: the event without id and time, optional fields only when present. */
export function connectionOf(event: TrafficEvent): PreviewConnection {
  const connection: PreviewConnection = { direction: event.direction, srcIp: event.srcIp, destIp: event.destIp, protocol: event.protocol };
  if (event.srcPort !== undefined) connection.srcPort = event.srcPort;
  if (event.destPort !== undefined) connection.destPort = event.destPort;
  if (event.targetTags !== undefined) connection.targetTags = event.targetTags;
  return connection;
}

/** Copies a verdict into the plain shape records carry. */
export const verdictOf = (v: PreviewVerdict): PreviewVerdict => ({ action: v.action, rulePriority: v.rulePriority, implied: v.implied });

export function previewRecord(
  event: TrafficEvent,
  connection: PreviewConnection,
  view: PolicyView,
  experiment: ActiveExperiment,
  liveResult: PreviewVerdict,
  experimentResult: PreviewVerdict,
): PreviewLogRecord {
  return {
    logPrefix: PREVIEW_LOG_PREFIX,
    id: previewRecordId(event.id, experiment.name, experiment.etag),
    experiment: experiment.name,
    firewallPolicy: view.name,
    experimentEtag: experiment.etag,
    livePolicyEtag: view.etag,
    trafficEventId: event.id,
    eventTime: event.time,
    connection,
    liveResult,
    experimentResult,
    changed: liveResult.action !== experimentResult.action,
  };
}

/** A record as one text line, starting with the log prefix (for text log sinks). */
export const recordLine = (record: PreviewLogRecord) => `${PREVIEW_LOG_PREFIX} ${JSON.stringify(record)}`;
