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
 * The traffic path's pure steps. Every event is decoded once and evaluated once per
 * configuration of its policy (`ViewEvaluator.evaluate`: one call, the live verdict and one per
 * ACTIVE experiment, interned as an `Outcome`). A batch is then tallied by outcome, minute and
 * distinct connection, and only those tallies are spread over the configurations: per-experiment
 * work grows with the distinct outcomes and connections of a batch, never with its events, and
 * nothing at ingest grows with pairs of experiments (their disagreement is read from the
 * cohort's outcome masks, see `CohortBatch`).
 */

/** One TRAFFIC message as evaluateBatch takes it: decoded (or refused) by its major. */
export interface TrafficMessage<R extends RefusedTraffic = RefusedTraffic> {
  /** Its TRAFFIC stream sequence: what "counted once" is recorded by. */
  seq: number;
  /** JetStream delivered it before. */
  redelivered: boolean;
  decoded: DecodedTrafficMessage | R;
}

export interface DecodedTrafficMessage {
  /** `{project}.{location}.{firewallPolicy}` from the subject. */
  key: string;
  events: readonly TrafficToEvaluate[];
}

/** A message that will never be evaluated, and why (the dead-letter reason). */
export interface RefusedTraffic {
  kind: string;
  reason: string;
  /** `{project}.{location}.{firewallPolicy}` when the subject names one: whose report misses it. */
  key?: string;
}

/** A refused message of a named policy, recorded once (its sequence is counted with it). */
export interface DeadLetterEntry {
  /** `{project}.{location}.{firewallPolicy}` from the subject, whether that policy exists or not. */
  key: string;
  kind: string;
  reason: string;
}

export const isRefused = <R extends RefusedTraffic>(
  decoded: DecodedTrafficMessage | R,
): decoded is R => 'kind' in decoded;

/** What one batch of traffic messages does, before anything is written. */
export interface BatchOutcome<R extends RefusedTraffic = RefusedTraffic> {
  /** Per configuration: what the counting transaction adds. */
  configurations: ConfigurationBatch[];
  /** Per cohort of two or more ACTIVE experiments: what their disagreement adds. */
  cohorts: CohortBatch[];
  /** Per view: the events evaluated, for the preview log. */
  logs: ViewLog[];
  /** Messages to dead-letter, by index in the batch, and why. */
  refused: { index: number; refusal: R | RefusedTraffic }[];
  /**
   * Refused messages whose subject names a policy, not counted before: what the dead-letter
   * record adds (a subject naming no project is left out: it is in the metrics only).
   */
  deadLetters: DeadLetterEntry[];
  /** The TRAFFIC sequences the counting transaction records: evaluated and refused messages. */
  countedSeqs: number[];
  /** Messages counted by this batch that had ACTIVE experiments. */
  countedMessages: number;
  /** Messages skipped because the store had counted them already. */
  duplicateMessages: number;
  /** Events settled as evaluated (those of a message with no ACTIVE experiment included). */
  settledEvents: number;
  /** Events evaluated against ACTIVE experiments (the same event twice in the batch once). */
  evaluatedEvents: number;
}

/**
 * Evaluates a batch of decoded TRAFFIC messages against the views in force (`viewOf`, read per
 * message) and tallies it. Messages `counted` before are skipped; a message whose policy is
 * unknown, or whose events the engine cannot evaluate, is refused (and dead-lettered again on
 * every delivery); a refused message whose subject names a policy is recorded once, its sequence
 * counted so that a redelivery does not record it twice, and, when that policy has ACTIVE
 * experiments, it is lost to their reports. The same event id twice for one policy in a
 * batch (a republish, or both majors) is evaluated once.
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
