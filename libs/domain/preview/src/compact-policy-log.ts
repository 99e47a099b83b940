import { PREVIEW_LOG_PREFIX, type TrafficEvent, previewVerdictToken } from '@rollout/contracts';
import type { Outcome } from './outcome';
import { policyLogKeys } from './policy-log';
import type { PolicyView } from './views';

/**
 * CompactPolicyPreviewLog (preview.v1 1.10.0) from pieces prepared once per view, outcome and
 * event: `head`, outcomes, COMPACT_POLICY_LOG_EVENTS, rows (`[` + index + eventRow), COMPACT_POLICY_LOG_TAIL.
 */

const heads = new WeakMap<PolicyView, string>();

/** Up to `"outcomes":[` inclusive. */
export function compactPolicyLogHead(view: PolicyView): string {
  let head = heads.get(view);
  if (head === undefined) {
    const json = JSON.stringify;
    const experiments = view.active
      .map((t) => `{"experiment":${json(t.name)},"experimentEtag":${json(t.etag)}}`)
      .join(',');
    head = `{"logPrefix":"${PREVIEW_LOG_PREFIX}","firewallPolicy":${json(view.name)},"livePolicyEtag":${json(view.etag)},"experiments":[${experiments}],"idPrefix":${json(policyLogKeys(view).idPrefix)},"outcomes":[`;
    heads.set(view, head);
  }
  return head;
}

export const COMPACT_POLICY_LOG_EVENTS = '],"events":[';
export const COMPACT_POLICY_LOG_TAIL = ']}';

const OUTCOME_JSON = 'compact-policy-log';

/** `["a100","D10",…]`, ASCII. */
export function compactOutcomeJson(outcome: Outcome): string {
  let json = outcome.encoded.get(OUTCOME_JSON);
  if (json === undefined) {
    const { live } = outcome;
    let text = `["${previewVerdictToken(live)}"`;
    for (const v of outcome.experiments)
      text += `,"${previewVerdictToken(v, v.action !== live.action)}"`;
    json = `${text}]`;
    outcome.encoded.set(OUTCOME_JSON, json);
  }
  return json;
}

/** `,"evt-1","2026-11-25T09:41:07Z","I","198.51.100.7","10.0.0.5","tcp",51512,22]` */
export function compactEventRow(event: TrafficEvent): string {
  const json = JSON.stringify;
  let row = `,${json(event.id)},${json(event.time)},"${event.direction === 'INGRESS' ? 'I' : 'E'}",${json(event.srcIp)},${json(event.destIp)},${typeof event.protocol === 'number' ? event.protocol : json(event.protocol)}`;
  const { srcPort, destPort, targetTags, srcSecureTags } = event;
  const sourceTags = srcSecureTags !== undefined;
  if (srcPort !== undefined || destPort !== undefined || targetTags !== undefined || sourceTags)
    row += `,${srcPort ?? 'null'}`;
  if (destPort !== undefined || targetTags !== undefined || sourceTags)
    row += `,${destPort ?? 'null'}`;
  if (targetTags !== undefined || sourceTags) row += `,${targetTags ? json(targetTags) : 'null'}`;
  if (sourceTags) row += `,${json(srcSecureTags)}`;
  return `${row}]`;
}
