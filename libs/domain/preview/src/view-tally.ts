import type { FlowConnection, PreviewFlowSample, TrafficEvent } from '@rollout/contracts';
import { PREVIEW_FLOW_SAMPLES } from '@rollout/contracts';
import type { ParsedConnection } from '@rollout/domain/firewall';
import { FlowTally, addToFlow, connectionKey, flowConnection } from './flows';
import { Outcome, StoredOutcome, ViewEvaluator, evaluatorOf, storedOutcome } from './outcome';
import type { ActiveExperiment, PolicyView } from './views';
import { ConfigurationTotals, MINUTE_MS, verdictOf } from './totals';

/**
 * What a batch adds, per configuration and per cohort, and how one view's events are tallied
 * on the way: by outcome and minute, and by distinct connection only where an outcome changes or
 * splits something. Totals are spread over the view's configurations; outcomes and flows are the
 * cohort's, written once whatever its size.
 */

/** One traffic event, parsed and ready to evaluate. */
export interface TrafficToEvaluate {
  event: TrafficEvent;
  connection: ParsedConnection;
  /** The event time in ms since the epoch. */
  timeMs: number;
}

/** What some evaluations add to one configuration (experiment etag × live policy etag). */
export class ConfigurationBatch {
  readonly totals = new ConfigurationTotals();
  /** Events evaluated from messages JetStream delivered more than once (a crash, a timeout, a replica gone). */
  redelivered = 0;
  /** Messages of this configuration's policy dead-lettered while it was ACTIVE, by reason. */
  readonly deadLettered = new Map<string, number>();

  constructor(readonly target: ActiveExperiment) {}

  /** Adds what other evaluations (of other messages) add to the same configuration. */
  addAll(other: ConfigurationBatch): void {
    this.totals.addAll(other.totals);
    this.redelivered += other.redelivered;
    for (const [reason, count] of other.deadLettered)
      this.deadLettered.set(reason, (this.deadLettered.get(reason) ?? 0) + count);
  }
}

/**
 * What a batch adds to the experiments ACTIVE together on one policy view, its cohort, keyed by
 * outcome (the deciding rules of the live policy and of each configuration) so that nothing a
 * batch writes grows with the cohort's size: its events by outcome, from which each
 * configuration's rule transitions are derived when the report is read; its changed or split
 * connections by outcome, one flow whichever configurations it changes, from which each
 * configuration's changed flows (`memberFlows`) and each pair's disagreeing flows are derived;
 * and, with two or more experiments, its events by outcome mask (bit i: `active[i]` denies) where
 * they do not all agree.
 */
export interface CohortBatch {
  /** The configurations, in mask bit (and outcome column) order. */
  readonly targets: readonly ActiveExperiment[];
  /** Events by outcome, keyed by `StoredOutcome.key`. */
  readonly outcomes: Map<string, StoredOutcome>;
  /** Events by mask. */
  readonly masks: Map<number, number>;
  /** By connection key and `StoredOutcome.key`. */
  readonly flows: Map<string, CohortFlow>;
}

/** One connection (without source port) of one outcome: what some configuration changes, or the cohort splits on. */
export interface CohortFlow extends FlowConnection<string> {
  readonly outcome: Omit<StoredOutcome, 'count'>;
  /** The outcome's deny mask (bit i: the cohort's i-th configuration denies). */
  readonly mask: number;
  count: number;
  firstMs: number;
  lastMs: number;
  /** The first events of the flow, at most PREVIEW_FLOW_SAMPLES. */
  samples: PreviewFlowSample[];
}

/**
 * One member's changed flows, derived from its cohort's flows (its column, `position`): the flows
 * whose outcome it decides otherwise than live, merged by connection and both deciding rules.
 */
export function memberFlows(flows: Iterable<CohortFlow>, position: number): FlowTally[] {
  const merged = new Map<string, FlowTally>();
  for (const flow of flows) {
    const { outcome } = flow;
    const experimentAction = outcome.experimentActions[position] === 'd' ? 'deny' : 'allow';
    if (experimentAction === outcome.liveAction) continue;
    const experimentPriority = outcome.experimentPriorities[position];
    const key = `${flow.direction}|${flow.srcIp}|${flow.destIp}|${flow.protocol}|${flow.destPort}|${outcome.livePriority}|${experimentPriority}`;
    const known = merged.get(key);
    if (known) addToFlow(known, flow);
    else
      merged.set(key, {
        direction: flow.direction,
        srcIp: flow.srcIp,
        destIp: flow.destIp,
        protocol: flow.protocol,
        ...(flow.destPort === undefined ? {} : { destPort: flow.destPort }),
        live: verdictOf(outcome.livePriority, outcome.liveAction),
        experiment: verdictOf(experimentPriority, experimentAction),
        count: flow.count,
        firstMs: flow.firstMs,
        lastMs: flow.lastMs,
        samples: [...flow.samples],
      });
  }
  return [...merged.values()];
}

/** The events of one view in a batch, in order, with their outcomes: what its preview log holds. */
export interface ViewLog {
  readonly view: PolicyView;
  readonly events: TrafficEvent[];
  readonly outcomes: Outcome[];
}

/** Events of one outcome in one minute. */
interface MinuteTally {
  minuteMs: number;
  /** The time of one of them (the totals' first and last event times are widened to it). */
  atMs: number;
  count: number;
}

/** Events of one outcome in a batch. */
interface OutcomeTally {
  count: number;
  firstMs: number;
  lastMs: number;
  /** By minute; a batch rarely spans more than two. */
  minutes: MinuteTally[];
}

/** Events of one connection (without source port) and outcome in a batch. */
interface ConnectionTally {
  key: string;
  connection: ParsedConnection;
  outcome: Outcome;
  count: number;
  firstMs: number;
  lastMs: number;
  samples: PreviewFlowSample[];
}

/** One view's part of a batch. */
export class ViewTally implements ViewLog {
  readonly events: TrafficEvent[] = [];
  readonly outcomes: Outcome[] = [];
  readonly evaluator: ViewEvaluator;
  private readonly byOutcome = new Map<Outcome, OutcomeTally>();
  /** Only connections whose outcome changes or splits something: flows and disagreement. */
  private readonly connections = new Map<string, ConnectionTally>();
  private redelivered = 0;

  constructor(readonly view: PolicyView) {
    this.evaluator = evaluatorOf(view);
  }

  add(traffic: TrafficToEvaluate, outcome: Outcome, redelivered: boolean): void {
    const { timeMs, event } = traffic;
    this.events.push(event);
    this.outcomes.push(outcome);
    if (redelivered) this.redelivered++;
    let tally = this.byOutcome.get(outcome);
    if (!tally) {
      tally = { count: 0, firstMs: timeMs, lastMs: timeMs, minutes: [] };
      this.byOutcome.set(outcome, tally);
    }
    tally.count++;
    if (timeMs < tally.firstMs) tally.firstMs = timeMs;
    if (timeMs > tally.lastMs) tally.lastMs = timeMs;
    const minuteMs = timeMs - (timeMs % MINUTE_MS);
    let minute = tally.minutes.find((m) => m.minuteMs === minuteMs);
    if (!minute) tally.minutes.push((minute = { minuteMs, atMs: timeMs, count: 0 }));
    minute.count++;
    if (!outcome.changes && !outcome.split) return;
    const key = `${connectionKey(traffic.connection)}|${outcome.id}`;
    let connection = this.connections.get(key);
    if (!connection) {
      connection = {
        key,
        connection: traffic.connection,
        outcome,
        count: 0,
        firstMs: timeMs,
        lastMs: timeMs,
        samples: [],
      };
      this.connections.set(key, connection);
    }
    connection.count++;
    if (timeMs < connection.firstMs) connection.firstMs = timeMs;
    if (timeMs > connection.lastMs) connection.lastMs = timeMs;
    if (connection.samples.length < PREVIEW_FLOW_SAMPLES) {
      connection.samples.push({
        trafficEventId: event.id,
        eventTime: event.time,
        ...(event.srcPort === undefined ? {} : { srcPort: event.srcPort }),
      });
    }
  }

  /** Adds this view's tallies to each ACTIVE configuration's batch. */
  spread(batchOf: (target: ActiveExperiment) => ConfigurationBatch): void {
    const { active } = this.view;
    for (let i = 0; i < active.length; i++) {
      const batch = batchOf(active[i]);
      batch.redelivered += this.redelivered;
      for (const [outcome, tally] of this.byOutcome) {
        const experiment = outcome.experiments[i];
        for (const minute of tally.minutes)
          batch.totals.add(outcome.live, experiment, minute.atMs, minute.count);
        batch.totals.span(tally.firstMs, tally.lastMs);
      }
    }
  }

  /** The cohort's events by outcome and, with two or more ACTIVE experiments, their disagreement. */
  cohort(): CohortBatch | undefined {
    if (this.byOutcome.size === 0) return undefined;
    const outcomes = new Map<string, StoredOutcome>();
    const masks = new Map<number, number>();
    for (const [outcome, tally] of this.byOutcome) {
      const stored = storedOutcome(outcome);
      const known = outcomes.get(stored.key);
      if (known) known.count += tally.count;
      else outcomes.set(stored.key, { ...stored, count: tally.count });
      if (outcome.split)
        masks.set(outcome.denyMask, (masks.get(outcome.denyMask) ?? 0) + tally.count);
    }
    const flows = new Map<string, CohortFlow>();
    for (const tally of this.connections.values()) {
      const outcome = storedOutcome(tally.outcome);
      const key = `${tally.key.slice(0, tally.key.lastIndexOf('|'))}|${outcome.key}`;
      const flow = flows.get(key);
      if (flow) addToFlow(flow, tally);
      else
        flows.set(key, {
          ...flowConnection(tally.connection),
          outcome,
          mask: tally.outcome.denyMask,
          count: tally.count,
          firstMs: tally.firstMs,
          lastMs: tally.lastMs,
          samples: tally.samples,
        });
    }
    return { targets: this.view.active, outcomes, masks, flows };
  }
}
