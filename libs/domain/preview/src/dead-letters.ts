import {
  DEAD_LETTER_SAMPLES,
  DeadLetterPolicyCount,
  DeadLetterSample,
  DeadLetterSummary,
  GetDeadLettersRequest,
  POLICY_KEY_ID,
  StatusError,
  parseKeyParent,
  parsePolicyKey,
} from '@rollout/contracts';
import type { DeadLetterEntry } from './evaluation';

export interface DeadLetterScope {
  project: string;
  location: string;
  policy: string;
}

/** Longest policy id and detail kept: a subject or a reason can carry a producer's junk. */
const MAX_TOKEN = 200;
const MAX_DETAIL = 500;
// Postgres refuses NUL in text; other control characters only garble a terminal.
const CONTROL = /[\u0000-\u001f\u007f]/g;

const clean = (text: string, max: number) => text.replace(CONTROL, '\uFFFD').slice(0, max);

export function deadLetterRecord(
  entry: DeadLetterEntry,
): DeadLetterScope & { reason: string; detail: string } {
  const { project, location, policy } = parsePolicyKey(entry.key) ?? {
    project: '',
    location: '',
    policy: '',
  };
  return {
    project: clean(project, MAX_TOKEN),
    location: clean(location, MAX_TOKEN),
    policy: clean(policy, MAX_TOKEN),
    reason: clean(entry.kind, MAX_TOKEN),
    detail: clean(entry.reason, MAX_DETAIL),
  };
}

export function deadLetterQuery(
  request: GetDeadLettersRequest | undefined,
): Omit<DeadLetterScope, 'policy'> & { policy?: string } {
  const parent = parseKeyParent(request?.parent);
  if (!parent) {
    throw StatusError.invalidArgument(
      `"${String(request?.parent ?? '').slice(0, 200)}" is not a project location.`,
      [{ field: 'parent', description: 'projects/{project}/locations/{location}' }],
    );
  }
  const policy = request?.policy;
  if (
    policy !== undefined &&
    policy !== '' &&
    (typeof policy !== 'string' || !POLICY_KEY_ID.test(policy))
  )
    throw StatusError.invalidArgument(`"${String(policy).slice(0, 200)}" is not a policy id.`, [
      { field: 'policy', description: 'a firewall policy id, without dots or slashes' },
    ]);
  return { ...parent, policy: policy || undefined };
}

export interface DeadLetterCountRow {
  policy: string;
  reason: string;
  messages: number;
  lastTime: Date;
}

export function deadLetterSummary(
  counts: readonly DeadLetterCountRow[],
  samples: readonly DeadLetterSample[],
): DeadLetterSummary {
  const byPolicy = new Map<string, DeadLetterPolicyCount & { last: number }>();
  let total = 0;
  for (const row of counts) {
    total += row.messages;
    let entry = byPolicy.get(row.policy);
    if (!entry) {
      entry = { policy: row.policy, total: 0, byReason: [], lastTime: '', last: 0 };
      byPolicy.set(row.policy, entry);
    }
    entry.total += row.messages;
    entry.byReason.push({ reason: row.reason, count: row.messages });
    entry.last = Math.max(entry.last, row.lastTime.getTime());
  }
  const policies = [...byPolicy.values()]
    .sort((a, b) => b.total - a.total || (a.policy < b.policy ? -1 : 1))
    .map(({ last, ...entry }) => ({
      ...entry,
      byReason: entry.byReason.sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : 1)),
      lastTime: new Date(last).toISOString(),
    }));
  return { total, byPolicy: policies, samples: samples.slice(0, DEAD_LETTER_SAMPLES) };
}
