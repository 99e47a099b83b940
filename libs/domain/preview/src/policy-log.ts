import { PREVIEW_LOG_PREFIX, type PreviewVerdict, type TrafficEvent } from '@rollout/contracts';
import { createHash } from 'node:crypto';
import type { Outcome } from './outcome';
import { connectionOf } from './records';
import type { PolicyView } from './views';

/**
 * A policy's preview log (preview.v1 since 1.8.0): one record per event carrying the live verdict
 * and every ACTIVE experiment's, in messages that name the configurations once. Written straight
 * to JSON text from pieces prepared once: per view (the message's head and the record id's
 * prefix), per outcome (the verdicts, shared by every event of that outcome), and per event (its
 * id, time and connection, written once whatever the number of experiments).
 */

/** What a view contributes to each message and record of its log. */
export interface PolicyLogKeys {
  /** The record id's prefix: a digest of the live policy version and the experiment versions. */
  readonly idPrefix: string;
  /** JSON from the message's `{` to `"events":[` */
  readonly head: string;
  /** Identifies the view's configurations, for message ids. */
  readonly configurations: string;
}

const keysOfView = new WeakMap<PolicyView, PolicyLogKeys>();

export function policyLogKeys(view: PolicyView): PolicyLogKeys {
  let keys = keysOfView.get(view);
  if (!keys) {
    const configurations = [
      view.name,
      view.etag,
      ...view.active.flatMap((target) => [target.name, target.etag]),
    ].join('\n');
    const json = JSON.stringify;
    const experiments = view.active
      .map((t) => `{"experiment":${json(t.name)},"experimentEtag":${json(t.etag)}}`)
      .join(',');
    keys = {
      idPrefix: createHash('sha256').update(configurations).digest('base64url').slice(0, 22),
      head: `{"logPrefix":"${PREVIEW_LOG_PREFIX}","firewallPolicy":${json(view.name)},"livePolicyEtag":${json(view.etag)},"experiments":[${experiments}],"events":[`,
      configurations,
    };
    keysOfView.set(view, keys);
  }
  return keys;
}

/** The end of every message: after the last record. */
export const POLICY_LOG_TAIL = ']}';

/** A record's event part: from `{` to `"liveResult":`, exclusive. */
export function policyLogEventJson(keys: PolicyLogKeys, event: TrafficEvent): string {
  const id = JSON.stringify(event.id);
  return `{"id":"${keys.idPrefix}.${id.slice(1, -1)}","trafficEventId":${id},"eventTime":${JSON.stringify(event.time)},"connection":${JSON.stringify(connectionOf(event))},`;
}

const OUTCOME_JSON = 'policy-log';

/** A record's verdicts: from `"liveResult":` to the record's closing `}`; cached on the outcome. */
export function outcomeJson(outcome: Outcome): string {
  let json = outcome.encoded.get(OUTCOME_JSON);
  if (json === undefined) {
    const results = outcome.experiments
      .map((v) => `${verdictJson(v).slice(0, -1)},"changed":${v.action !== outcome.live.action}}`)
      .join(',');
    json = `"liveResult":${verdictJson(outcome.live)},"experimentResults":[${results}]}`;
    outcome.encoded.set(OUTCOME_JSON, json);
  }
  return json;
}

const verdictJson = (v: PreviewVerdict) =>
  `{"action":"${v.action}","rulePriority":${v.rulePriority},"implied":${v.implied}}`;
