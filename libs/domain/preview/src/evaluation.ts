import { formatPolicyName, parsePolicyKey } from '@rollout/contracts';
import type { ActiveExperiment, PolicyView } from './views';
import { Outcome } from './outcome';
import {
  CohortBatch,
  ConfigurationBatch,
  TrafficToEvaluate,
  ViewLog,
  ViewTally,
} from './view-tally';

/**
 * Per-experiment work grows with a batch's distinct outcomes and connections, never its events;
 * nothing at ingest grows with pairs of experiments (see `CohortBatch`).
 */

export interface TrafficMessage<R extends RefusedTraffic = RefusedTraffic> {
  /** What "counted once" is recorded by. */
  seq: number;
  redelivered: boolean;
  decoded: DecodedTrafficMessage | R;
}

export interface DecodedTrafficMessage {
  /** `{project}.{location}.{firewallPolicy}` from the subject. */
  key: string;
  events: readonly TrafficToEvaluate[];
}

export interface RefusedTraffic {
  kind: string;
  reason: string;
  /** Whose report misses it, when the subject names a policy. */
  key?: string;
}

export interface DeadLetterEntry {
  /** Whether that policy exists or not. */
  key: string;
  kind: string;
  reason: string;
}

export const isRefused = <R extends RefusedTraffic>(
  decoded: DecodedTrafficMessage | R,
): decoded is R => 'kind' in decoded;

export interface BatchOutcome<R extends RefusedTraffic = RefusedTraffic> {
  configurations: ConfigurationBatch[];
  cohorts: CohortBatch[];
  logs: ViewLog[];
  refused: { index: number; refusal: R | RefusedTraffic }[];
  /** A subject naming no project is in the metrics only. */
  deadLetters: DeadLetterEntry[];
  /** Evaluated and refused alike. */
  countedSeqs: number[];
  countedMessages: number;
  duplicateMessages: number;
  /** Including those of a message with no ACTIVE experiment. */
  settledEvents: number;
  /** The same event twice in the batch counts once. */
  evaluatedEvents: number;
}

/**
 * A refused message is dead-lettered again on every delivery but recorded once (its sequence is
 * counted). The same event id twice in a batch (a republish, or both majors) is evaluated once.
 */
export function evaluateBatch<R extends RefusedTraffic>(
  messages: readonly TrafficMessage<R>[],
  counted: ReadonlySet<number>,
  viewOf: (key: string) => PolicyView | undefined,
): BatchOutcome<R> {
  const refused: BatchOutcome<R>['refused'] = [];
  const countedSeqs: number[] = [];
  const deadLetters: DeadLetterEntry[] = [];
  const views = new Map<PolicyView, ViewTally>();
  const lost = new Map<ActiveExperiment, Map<string, number>>();
  const seen = new Map<string, Set<string>>();
  let countedMessages = 0;
  let duplicateMessages = 0;
  let settledEvents = 0;
  let evaluatedEvents = 0;

  const refuse = (index: number, seq: number, refusal: R | RefusedTraffic) => {
    refused.push({ index, refusal });
    if (refusal.key === undefined || counted.has(seq)) return;
    countedSeqs.push(seq);
    deadLetters.push({ key: refusal.key, kind: refusal.kind, reason: refusal.reason });
    for (const target of viewOf(refusal.key)?.active ?? []) {
      let reasons = lost.get(target);
      if (!reasons) lost.set(target, (reasons = new Map()));
      reasons.set(refusal.kind, (reasons.get(refusal.kind) ?? 0) + 1);
    }
  };

  for (let index = 0; index < messages.length; index++) {
    const { seq, redelivered, decoded } = messages[index];
    if (isRefused(decoded)) {
      refuse(index, seq, decoded);
      continue;
    }
    const view = viewOf(decoded.key);
    // Before the counted check: a redelivered unknown-policy message (its dead-letter publish
    // failed) is dead-lettered again, not taken for a counted duplicate.
    if (!view) {
      const ids = parsePolicyKey(decoded.key);
      refuse(index, seq, {
        kind: 'unknown_policy',
        reason: `no live policy ${ids ? formatPolicyName(ids) : decoded.key}`,
        key: decoded.key,
      });
      continue;
    }
    if (counted.has(seq)) {
      duplicateMessages++;
      settledEvents += decoded.events.length;
      continue;
    }
    settledEvents += decoded.events.length;
    if (view.active.length === 0) continue;
    let tally = views.get(view);
    if (!tally) views.set(view, (tally = new ViewTally(view)));
    let ids = seen.get(decoded.key);
    if (!ids) seen.set(decoded.key, (ids = new Set()));
    // Every event of the message is evaluated before any is tallied: one the engine refuses
    // refuses the whole message, and nothing of it is counted.
    const outcomes: Outcome[] = [];
    try {
      for (const traffic of decoded.events)
        outcomes.push(tally.evaluator.evaluate(traffic.connection));
    } catch (error) {
      const refusal = {
        kind: 'unevaluable',
        reason: `cannot evaluate: ${error instanceof Error ? error.message : String(error)}`,
        key: decoded.key,
      };
      refuse(index, seq, refusal);
      settledEvents -= decoded.events.length;
      continue;
    }
    for (let i = 0; i < outcomes.length; i++) {
      const traffic = decoded.events[i];
      if (ids.has(traffic.event.id)) continue;
      ids.add(traffic.event.id);
      tally.add(traffic, outcomes[i], redelivered);
      evaluatedEvents++;
    }
    countedSeqs.push(seq);
    countedMessages++;
  }

  const configurations = new Map<ActiveExperiment, ConfigurationBatch>();
  const batchOf = (target: ActiveExperiment) => {
    let batch = configurations.get(target);
    if (!batch) configurations.set(target, (batch = new ConfigurationBatch(target)));
    return batch;
  };
  const cohorts: CohortBatch[] = [];
  const logs: ViewLog[] = [];
  for (const tally of views.values()) {
    tally.spread(batchOf);
    const cohort = tally.cohort();
    if (cohort) cohorts.push(cohort);
    if (tally.events.length > 0) logs.push(tally);
  }
  for (const [target, reasons] of lost) {
    const batch = batchOf(target);
    for (const [reason, count] of reasons)
      batch.deadLettered.set(reason, (batch.deadLettered.get(reason) ?? 0) + count);
  }
  return {
    configurations: [...configurations.values()],
    cohorts,
    logs,
    refused,
    deadLetters,
    countedSeqs: countedSeqs.sort((a, b) => a - b),
    countedMessages,
    duplicateMessages,
    settledEvents,
    evaluatedEvents,
  };
}
