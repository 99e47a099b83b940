import { PREVIEW_LOG_PREFIX, type TrafficEvent, previewVerdictToken } from '@rollout/contracts';
import type { Outcome } from './outcome';
import { policyLogKeys } from './policy-log';
import type { PolicyView } from './views';

/**
 * A policy's compact preview log (preview.v1's CompactPolicyPreviewLog since 1.10.0), written as
 * JSON text from pieces prepared once: per view (the message's head up to its outcomes), per
 * outcome (its verdict tokens, shared by every event of that outcome and cached on it), and per
 * event (its row without the outcome's index, which depends on the message). A message is
 * `head`, the outcomes of its events joined by commas, COMPACT_POLICY_LOG_EVENTS, the rows
 * (`[` + index + eventRow) joined by commas, and COMPACT_POLICY_LOG_TAIL.
 */

const heads = new WeakMap<PolicyView, string>();

/** JSON from the message's `{` to `"outcomes":[` inclusive. */
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

/** Between the last outcome and the first row. */
export const COMPACT_POLICY_LOG_EVENTS = '],"events":[';
/** After the last row. */
export const COMPACT_POLICY_LOG_TAIL = ']}';

const OUTCOME_JSON = 'compact-policy-log';

/** An outcome's entry in `outcomes`: `["a100","D10",…]`, ASCII; cached on the outcome. */
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

/**
 * An event's row after its outcome's index: from the comma before its id to its closing `]`
 * (`,"evt-1","2026-11-25T09:41:07Z","I","198.51.100.7","10.0.0.5","tcp",51512,22]`).
 */
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
