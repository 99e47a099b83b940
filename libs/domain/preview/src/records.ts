import {
  PREVIEW_LOG_PREFIX,
  PreviewConnection,
  PreviewFlow,
  PreviewFlowSample,
  PreviewLogRecord,
  PreviewVerdict,
  TrafficEvent,
} from '@rollout/contracts';
import { createHash } from 'node:crypto';

/**
 * Preview log records, written straight to JSON text: a record is written once per event and
 * ACTIVE experiment, so everything that does not depend on the event is prepared once per
 * configuration (RecordKeys), and everything that depends only on the event once per event.
 */

/** What a configuration (experiment version × live policy version) contributes to each record. */
export interface RecordKeys {
  /** Identifies the experiment version: `${experiment}\n${etag}`. */
  readonly version: string;
  /** Identifies the configuration: `${experiment}\n${etag}\n${liveEtag}`. */
  readonly configuration: string;
  /** The record id's prefix, a digest of experiment and etag. */
  readonly idPrefix: string;
  /** JSON from `,"experiment"` to `"trafficEventId":` */
  readonly head: string;
}

/** The digest of an experiment version that prefixes the ids of its records. */
export const recordIdPrefix = (experiment: string, experimentEtag: string) =>
  createHash('sha256').update(`${experiment}\n${experimentEtag}`).digest('base64url').slice(0, 22);

/**
 * A log record's id: a function of the traffic event id, the experiment and the experiment's
 * etag only, so evaluating the same event again (a redelivery, another replica, a restart)
 * gives the same id, whichever live policy version was in force. `{digest}.{traffic event id}`.
 */
export const previewRecordId = (
  trafficEventId: string,
  experiment: string,
  experimentEtag: string,
) => `${recordIdPrefix(experiment, experimentEtag)}.${trafficEventId}`;

export function recordKeys(
  experiment: string,
  experimentEtag: string,
  firewallPolicy: string,
  liveEtag: string,
): RecordKeys {
  const json = JSON.stringify;
  return {
    version: `${experiment}\n${experimentEtag}`,
    configuration: `${experiment}\n${experimentEtag}\n${liveEtag}`,
    idPrefix: recordIdPrefix(experiment, experimentEtag),
    head: `,"experiment":${json(experiment)},"firewallPolicy":${json(firewallPolicy)},"experimentEtag":${json(experimentEtag)},"livePolicyEtag":${json(liveEtag)},"trafficEventId":`,
  };
}

/** The evaluated connection: the event without id and time, optional fields only when present. */
export function connectionOf(event: TrafficEvent): PreviewConnection {
  const connection: PreviewConnection = {
    direction: event.direction,
    srcIp: event.srcIp,
    destIp: event.destIp,
    protocol: event.protocol,
  };
  if (event.srcPort !== undefined) connection.srcPort = event.srcPort;
  if (event.destPort !== undefined) connection.destPort = event.destPort;
  if (event.targetTags !== undefined) connection.targetTags = event.targetTags;
  if (event.srcSecureTags !== undefined) connection.srcSecureTags = event.srcSecureTags;
  return connection;
}

const verdictJson = (v: PreviewVerdict) =>
  `{"action":"${v.action}","rulePriority":${v.rulePriority},"implied":${v.implied}}`;

/** The part of every record of one event that does not depend on the experiment. */
export interface EventJson {
  /** The event id as it sits inside a JSON string (escaped, no quotes). */
  readonly escapedId: string;
  /** JSON from the trafficEventId value to `"experimentResult":` */
  readonly body: string;
}

export function eventJson(event: TrafficEvent, live: PreviewVerdict): EventJson {
  const id = JSON.stringify(event.id);
  return {
    escapedId: id.slice(1, -1),
    body: `${id},"eventTime":${JSON.stringify(event.time)},"connection":${JSON.stringify(connectionOf(event))},"liveResult":${verdictJson(live)},"experimentResult":`,
  };
}

/** One record as JSON; parsing it gives exactly the PreviewLogRecord of previewRecord(). */
export function recordJson(
  keys: RecordKeys,
  event: EventJson,
  experiment: PreviewVerdict,
  changed: boolean,
): string {
  return `{"logPrefix":"${PREVIEW_LOG_PREFIX}","id":"${keys.idPrefix}.${event.escapedId}"${keys.head}${event.body}${verdictJson(experiment)},"changed":${changed}}`;
}

/** The record as an object (what recordJson writes). */
export function previewRecord(
  event: TrafficEvent,
  target: { name: string; etag: string; liveEtag: string },
  firewallPolicy: string,
  liveResult: PreviewVerdict,
  experimentResult: PreviewVerdict,
): PreviewLogRecord {
  return {
    logPrefix: PREVIEW_LOG_PREFIX,
    id: previewRecordId(event.id, target.name, target.etag),
    experiment: target.name,
    firewallPolicy,
    experimentEtag: target.etag,
    livePolicyEtag: target.liveEtag,
    trafficEventId: event.id,
    eventTime: event.time,
    connection: connectionOf(event),
    liveResult: {
      action: liveResult.action,
      rulePriority: liveResult.rulePriority,
      implied: liveResult.implied,
    },
    experimentResult: {
      action: experimentResult.action,
      rulePriority: experimentResult.rulePriority,
      implied: experimentResult.implied,
    },
    changed: liveResult.action !== experimentResult.action,
  };
}

/** The record a changed flow's sample was logged as (a flow keeps no target tags, so neither does this). */
export function flowSampleRecord(
  experiment: string,
  firewallPolicy: string,
  flow: PreviewFlow,
  sample: PreviewFlowSample,
): PreviewLogRecord {
  return {
    logPrefix: PREVIEW_LOG_PREFIX,
    id: previewRecordId(sample.trafficEventId, experiment, flow.experimentEtag),
    experiment,
    firewallPolicy,
    experimentEtag: flow.experimentEtag,
    livePolicyEtag: flow.livePolicyEtag,
    trafficEventId: sample.trafficEventId,
    eventTime: sample.eventTime,
    connection: {
      direction: flow.direction,
      srcIp: flow.srcIp,
      destIp: flow.destIp,
      protocol: flow.protocol as PreviewLogRecord['connection']['protocol'],
      ...(sample.srcPort === undefined ? {} : { srcPort: sample.srcPort }),
      ...(flow.destPort === undefined ? {} : { destPort: flow.destPort }),
    },
    liveResult: flow.liveResult,
    experimentResult: flow.experimentResult,
    changed: true,
  };
}
