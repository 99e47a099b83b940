import type { PreviewFlowSample, PreviewVerdict, TrafficEvent } from '@rollout/contracts';
import { PREVIEW_FLOW_SAMPLES } from '@rollout/contracts';
import { NO_PORT, type ParsedConnection } from '@rollout/domain/firewall';
import type { ActiveExperiment, PolicyView } from './state';
import { ConfigurationTotals, MINUTE_MS } from './totals';

/**
 * The traffic path's pure steps. Every event is decoded once and evaluated once per
 * configuration of its policy (`ViewEvaluator.evaluate`: one call, the live verdict and one per
 * ACTIVE experiment, interned as an `Outcome`). A batch is then tallied by outcome, minute and
 * distinct connection, and only those tallies are spread over the configurations: per-experiment
 * work grows with the distinct outcomes and connections of a batch, never with its events, and
 * nothing at ingest grows with pairs of experiments (their disagreement is read from the
 * cohort's outcome masks, see `CohortBatch`).
 */

/** One traffic event, parsed and ready to evaluate. */
export interface TrafficToEvaluate {
  event: TrafficEvent;
  connection: ParsedConnection;
  /** The event time in ms since the epoch. */
  timeMs: number;
}

/**
 * What every configuration of one policy view decided for a connection: the live verdict, then
 * one per `view.active`, in that order. Interned per view (one object per distinct list of
 * verdicts: the engine hands out one verdict object per rule), so tallies key on it by identity.
 */
export class Outcome {
  /** Bit i set when `view.active[i]` denies (the cohort's disagreement mask). */
  readonly denyMask: number;
  /** Some experiment decides otherwise than live: a changed flow of that configuration. */
  readonly changes: boolean;
  /** Two experiments decide differently: a disagreement within the cohort. */
  readonly split: boolean;
  /** Encodings of this outcome, cached by their writers (the preview log). */
  readonly encoded = new Map<string, string>();

  constructor(
    /** Numbers the outcomes of one view, in order of appearance. */
    readonly id: number,
    readonly live: PreviewVerdict,
    readonly experiments: readonly PreviewVerdict[],
  ) {
    let mask = 0;
    let changes = false;
    for (let i = 0; i < experiments.length; i++) {
      if (experiments[i].action === 'deny' && i < MASK_BITS) mask |= 1 << i;
      if (experiments[i].action !== live.action) changes = true;
    }
    this.denyMask = mask;
    this.changes = changes;
    this.split = experiments.some((e) => e.action !== experiments[0].action);
  }
}

/** Experiments a disagreement mask covers: AIP-236 allows 10 per policy, a 31-bit mask plenty. */
export const MASK_BITS = 31;

interface OutcomeNode {
  next?: Map<PreviewVerdict, OutcomeNode>;
  outcome?: Outcome;
}

/** Distinct outcomes a view keeps interned before it starts over (old outcomes stay valid). */
const MAX_OUTCOMES = 100_000;

/**
 * Evaluates connections against the live policy and every ACTIVE experiment of one view in one
 * call. The verdicts go to a reused scratch array, and a trie of the verdict objects finds the
 * interned outcome: no allocation for an outcome seen before.
 */
export class ViewEvaluator {
  private root: OutcomeNode = {};
  private outcomes = 0;
  private readonly scratch: PreviewVerdict[];

  constructor(readonly view: PolicyView) {
    this.scratch = new Array<PreviewVerdict>(view.active.length);
  }

  evaluate(connection: ParsedConnection): Outcome {
    const { active, live } = this.view;
    const liveVerdict = live.evaluateParsed(connection);
    let node = this.child(this.root, liveVerdict);
    for (let i = 0; i < active.length; i++) {
      const verdict = active[i].policy.evaluateParsed(connection);
      this.scratch[i] = verdict;
      node = this.child(node, verdict);
    }
    if (!node.outcome) {
      if (this.outcomes >= MAX_OUTCOMES) {
        this.root = {};
        this.outcomes = 0;
        return this.evaluate(connection);
      }
      node.outcome = new Outcome(this.outcomes++, liveVerdict, [...this.scratch]);
    }
    return node.outcome;
  }

  private child(node: OutcomeNode, verdict: PreviewVerdict): OutcomeNode {
    node.next ??= new Map();
    let next = node.next.get(verdict);
    if (!next) node.next.set(verdict, (next = {}));
    return next;
  }
}

const evaluators = new WeakMap<PolicyView, ViewEvaluator>();

/** The evaluator of a view (views are replaced, never mutated, so one per view lives as long as it). */
export function evaluatorOf(view: PolicyView): ViewEvaluator {
  let evaluator = evaluators.get(view);
  if (!evaluator) evaluators.set(view, (evaluator = new ViewEvaluator(view)));
  return evaluator;
}

/** Changed decisions of one flow: the connection without its source port, and both deciding rules. */
export interface FlowTally extends FlowConnection {
  live: PreviewVerdict;
  experiment: PreviewVerdict;
  count: number;
  firstMs: number;
  lastMs: number;
  /** The first events of the flow, at most PREVIEW_FLOW_SAMPLES. */
  samples: PreviewFlowSample[];
}

/** A connection without its source port, as flows write it (canonical addresses, protocol names). */
export interface FlowConnection {
  direction: 'INGRESS' | 'EGRESS';
  /** Canonical text (dotted quad, or eight hex groups). */
  srcIp: string;
  destIp: string;
  /** The protocol's name, or its number for protocols without one. */
  protocol: string;
  destPort?: number;
}

/** What some evaluations add to one configuration (experiment etag × live policy etag). */
export class ConfigurationBatch {
  readonly totals = new ConfigurationTotals();
  /** Changed decisions by flow key (the connection key and both deciding rules). */
  readonly flows = new Map<string, FlowTally>();
  /** Events evaluated from messages JetStream delivered more than once (a crash, a timeout, a replica gone). */
  redelivered = 0;
  /** Messages of this configuration's policy dead-lettered while it was ACTIVE, by reason. */
  readonly deadLettered = new Map<string, number>();

  constructor(readonly target: ActiveExperiment) {}
}

/**
 * What a batch adds to the disagreement of the experiments ACTIVE together on one policy view
 * (two or more): events and distinct connections by outcome mask (bit i: `active[i]` denies),
 * only where the experiments do not all agree. A pair's disagreement is read from these: the
 * events whose masks differ in the pair's two bits.
 */
export interface CohortBatch {
  /** The configurations, in mask bit order. */
  readonly targets: readonly ActiveExperiment[];
  /** Events by mask. */
  readonly masks: Map<number, number>;
  /** By connection key and mask. */
  readonly flows: Map<string, CohortFlow>;
}

export interface CohortFlow extends FlowConnection {
  mask: number;
  count: number;
}

/** The events of one view in a batch, in order, with their outcomes: what its preview log holds. */
export interface ViewLog {
  readonly view: PolicyView;
  readonly events: TrafficEvent[];
  readonly outcomes: Outcome[];
}

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
  /** The TRAFFIC sequences the counting transaction records: evaluated and lost messages. */
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
 * unknown, or whose events the engine cannot evaluate, is refused; a refused message of a policy
 * with ACTIVE experiments is lost to their reports (recorded as dead-lettered, and counted so
 * that a redelivery does not count it twice). The same event id twice for one policy in a
 * batch (a republish, or both majors) is evaluated once.
 */
export function evaluateBatch<R extends RefusedTraffic>(
  messages: readonly TrafficMessage<R>[],
  counted: ReadonlySet<number>,
  viewOf: (key: string) => PolicyView | undefined,
): BatchOutcome<R> {
  const refused: BatchOutcome<R>['refused'] = [];
  const countedSeqs: number[] = [];
  const views = new Map<PolicyView, ViewTally>();
  const lost = new Map<ActiveExperiment, Map<string, number>>();
  const seen = new Map<string, Set<string>>();
  let countedMessages = 0;
  let duplicateMessages = 0;
  let settledEvents = 0;
  let evaluatedEvents = 0;

  const lose = (seq: number, refusal: RefusedTraffic) => {
    const targets =
      refusal.key === undefined || counted.has(seq) ? undefined : viewOf(refusal.key)?.active;
    if (!targets?.length) return;
    countedSeqs.push(seq);
    for (const target of targets) {
      let reasons = lost.get(target);
      if (!reasons) lost.set(target, (reasons = new Map()));
      reasons.set(refusal.kind, (reasons.get(refusal.kind) ?? 0) + 1);
    }
  };

  for (let index = 0; index < messages.length; index++) {
    const { seq, redelivered, decoded } = messages[index];
    if (isRefused(decoded)) {
      refused.push({ index, refusal: decoded });
      lose(seq, decoded);
      continue;
    }
    if (counted.has(seq)) {
      duplicateMessages++;
      settledEvents += decoded.events.length;
      continue;
    }
    const view = viewOf(decoded.key);
    if (!view) {
      const [project, location, policy] = decoded.key.split('.');
      refused.push({
        index,
        refusal: {
          kind: 'unknown_policy',
          reason: `no live policy projects/${project}/locations/${location}/firewallPolicies/${policy}`,
          key: decoded.key,
        },
      });
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
      refused.push({ index, refusal });
      lose(seq, refusal);
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
    countedSeqs: countedSeqs.sort((a, b) => a - b),
    countedMessages,
    duplicateMessages,
    settledEvents,
    evaluatedEvents,
  };
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
class ViewTally implements ViewLog {
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
      for (const tally of this.connections.values()) {
        const { outcome } = tally;
        const experiment = outcome.experiments[i];
        if (experiment.action === outcome.live.action) continue;
        const key = `${tally.key.slice(0, tally.key.lastIndexOf('|'))}|${outcome.live.rulePriority}|${experiment.rulePriority}`;
        const flow = batch.flows.get(key);
        if (!flow) {
          batch.flows.set(key, {
            ...flowConnection(tally.connection),
            live: outcome.live,
            experiment,
            count: tally.count,
            firstMs: tally.firstMs,
            lastMs: tally.lastMs,
            samples: [...tally.samples],
          });
          continue;
        }
        flow.count += tally.count;
        if (tally.firstMs < flow.firstMs) flow.firstMs = tally.firstMs;
        if (tally.lastMs > flow.lastMs) flow.lastMs = tally.lastMs;
        for (const sample of tally.samples)
          if (flow.samples.length < PREVIEW_FLOW_SAMPLES) flow.samples.push(sample);
      }
    }
  }

  /** The cohort's disagreement, with two or more ACTIVE experiments. */
  cohort(): CohortBatch | undefined {
    if (this.view.active.length < 2) return undefined;
    const masks = new Map<number, number>();
    for (const [outcome, tally] of this.byOutcome)
      if (outcome.split)
        masks.set(outcome.denyMask, (masks.get(outcome.denyMask) ?? 0) + tally.count);
    if (masks.size === 0) return undefined;
    const flows = new Map<string, CohortFlow>();
    for (const tally of this.connections.values()) {
      const { outcome } = tally;
      if (!outcome.split) continue;
      const key = `${tally.key.slice(0, tally.key.lastIndexOf('|'))}|${outcome.denyMask}`;
      const flow = flows.get(key);
      if (flow) flow.count += tally.count;
      else
        flows.set(key, {
          ...flowConnection(tally.connection),
          mask: outcome.denyMask,
          count: tally.count,
        });
    }
    return { targets: this.view.active, masks, flows };
  }
}

/**
 * A connection without its source port, as parsed: two connections with equal keys are one flow
 * (a flow's key adds both deciding rules), so any spelling of one address is one key.
 */
const connectionKey = (c: ParsedConnection) =>
  `${c.direction}|${c.srcFamily}:${c.s0}:${c.s1}:${c.s2}:${c.s3}|${c.destFamily}:${c.d0}:${c.d1}:${c.d2}:${c.d3}|${c.protocol}|${c.portKey}`;

/** A connection without its source port, as flows write it (canonical addresses, protocol names). */
function flowConnection(c: ParsedConnection): FlowConnection {
  return {
    direction: c.direction,
    srcIp: addressText(c.srcFamily, c.s0, c.s1, c.s2, c.s3),
    destIp: addressText(c.destFamily, c.d0, c.d1, c.d2, c.d3),
    protocol: protocolName(c.protocol),
    ...(c.portKey === NO_PORT ? {} : { destPort: c.portKey }),
  };
}

/** IANA numbers of the protocols with names in traffic.v1, so `6` and `tcp` are one protocol. */
const PROTOCOL_NAMES: Record<number, string> = {
  6: 'tcp',
  17: 'udp',
  132: 'sctp',
  1: 'icmp',
  58: 'icmpv6',
  50: 'esp',
  51: 'ah',
};

export const protocolName = (protocol: number): string =>
  PROTOCOL_NAMES[protocol] ?? String(protocol);

/** An address as canonical text: a dotted quad, or eight hex groups (unabbreviated; Postgres reads both). */
export function addressText(family: 4 | 6, w0: number, w1: number, w2: number, w3: number): string {
  if (family === 4) return `${w0 >>> 24}.${(w0 >>> 16) & 255}.${(w0 >>> 8) & 255}.${w0 & 255}`;
  return [w0, w1, w2, w3]
    .map((w) => `${((w >>> 16) & 0xffff).toString(16)}:${(w & 0xffff).toString(16)}`)
    .join(':');
}
