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

/** One record per event and experiment: what does not depend on the event is prepared once. */

export interface RecordKeys {
  /** `${experiment}\n${etag}` */
  readonly version: string;
  /** `${experiment}\n${etag}\n${liveEtag}` */
  readonly configuration: string;
  readonly idPrefix: string;
  /** JSON from `,"experiment"` to `"trafficEventId":` */
  readonly head: string;
}

export const recordIdPrefix = (experiment: string, experimentEtag: string) =>
  createHash('sha256').update(`${experiment}\n${experimentEtag}`).digest('base64url').slice(0, 22);

/** Not of the live policy version: evaluating an event again (redelivery, replica) gives the same id. */
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

export interface EventJson {
  /** Escaped, no quotes. */
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

/** Parses to exactly previewRecord()'s object. */
export function recordJson(
  keys: RecordKeys,
  event: EventJson,
  experiment: PreviewVerdict,
  changed: boolean,
): string {
  return `{"logPrefix":"${PREVIEW_LOG_PREFIX}","id":"${keys.idPrefix}.${event.escapedId}"${keys.head}${event.body}${verdictJson(experiment)},"changed":${changed}}`;
}

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

/** A flow keeps no target tags, so neither does this. */
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
