import type { FlowConnection, PreviewFlowSample, TrafficEvent } from '@rollout/contracts';
import { PREVIEW_FLOW_SAMPLES } from '@rollout/contracts';
import type { ParsedConnection } from '@rollout/domain/firewall';
import { FlowTally, addToFlow, connectionKey, flowConnection } from './flows';
import { Outcome, StoredOutcome, ViewEvaluator, evaluatorOf, storedOutcome } from './outcome';
import type { ActiveExperiment, PolicyView } from './views';
import { ConfigurationTotals, MINUTE_MS, verdictOf } from './totals';

export interface TrafficToEvaluate {
  event: TrafficEvent;
  connection: ParsedConnection;
  timeMs: number;
}

export class ConfigurationBatch {
  readonly totals = new ConfigurationTotals();
  redelivered = 0;
  readonly deadLettered = new Map<string, number>();

  constructor(readonly target: ActiveExperiment) {}

  addAll(other: ConfigurationBatch): void {
    this.totals.addAll(other.totals);
    this.redelivered += other.redelivered;
    for (const [reason, count] of other.deadLettered)
      this.deadLettered.set(reason, (this.deadLettered.get(reason) ?? 0) + count);
  }
}

/**
 * Keyed by outcome so nothing a batch writes grows with the cohort's size: each member's
 * transitions and flows and each pair's disagreement are derived on read. Mask bit i: `active[i]` denies.
 */
export interface CohortBatch {
  /** In mask bit (and outcome column) order. */
  readonly targets: readonly ActiveExperiment[];
  readonly outcomes: Map<string, StoredOutcome>;
  readonly masks: Map<number, number>;
  readonly flows: Map<string, CohortFlow>;
}

export interface CohortFlow extends FlowConnection<string> {
  readonly outcome: Omit<StoredOutcome, 'count'>;
  readonly mask: number;
  count: number;
  firstMs: number;
  lastMs: number;
  samples: PreviewFlowSample[];
}

/** Merged by connection and both deciding rules. */
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

export interface ViewLog {
  readonly view: PolicyView;
  readonly events: TrafficEvent[];
  readonly outcomes: Outcome[];
}

interface MinuteTally {
  minuteMs: number;
  /** The totals' first and last event times are widened to it. */
  atMs: number;
  count: number;
}

interface OutcomeTally {
  count: number;
  firstMs: number;
  lastMs: number;
  /** By minute; a batch rarely spans more than two. */
  minutes: MinuteTally[];
}

interface ConnectionTally {
  key: string;
  connection: ParsedConnection;
  outcome: Outcome;
  count: number;
  firstMs: number;
  lastMs: number;
  samples: PreviewFlowSample[];
}

export class ViewTally implements ViewLog {
  readonly events: TrafficEvent[] = [];
  readonly outcomes: Outcome[] = [];
  readonly evaluator: ViewEvaluator;
  private readonly byOutcome = new Map<Outcome, OutcomeTally>();
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
