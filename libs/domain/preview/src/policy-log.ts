import { PREVIEW_LOG_PREFIX, type PreviewVerdict, type TrafficEvent } from '@rollout/contracts';
import { createHash } from 'node:crypto';
import type { Outcome } from './outcome';
import { connectionOf } from './records';
import type { PolicyView } from './views';

/** preview.v1 1.8.0's PolicyPreviewLogBatch, from pieces prepared once per view, outcome and event. */

export interface PolicyLogKeys {
  /** A digest of the live policy version and the experiment versions. */
  readonly idPrefix: string;
  /** Up to `"events":[` */
  readonly head: string;
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

export const POLICY_LOG_TAIL = ']}';

/** Up to `"liveResult":`, exclusive. */
export function policyLogEventJson(keys: PolicyLogKeys, event: TrafficEvent): string {
  const id = JSON.stringify(event.id);
  return `{"id":"${keys.idPrefix}.${id.slice(1, -1)}","trafficEventId":${id},"eventTime":${JSON.stringify(event.time)},"connection":${JSON.stringify(connectionOf(event))},`;
}

const OUTCOME_JSON = 'policy-log';

/** From `"liveResult":` to the record's closing `}`. */
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
