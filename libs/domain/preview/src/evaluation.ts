import type { PreviewFlowSample, PreviewVerdict, TrafficEvent } from '@rollout/contracts';
import { PREVIEW_FLOW_SAMPLES } from '@rollout/contracts';
import { NO_PORT, type ParsedConnection } from '@rollout/domain/firewall';
import type { ActiveExperiment, PolicyView } from './state';
import { ConfigurationTotals } from './totals';

/**
 * The traffic path's pure steps: evaluate one event against a live policy and its ACTIVE
 * experiments, then aggregate evaluations into what the store adds, per configuration: exact
 * totals, deciding-rule counts, and the changed decisions by flow. What a batch adds grows with
 * the configurations and distinct flows it touches, not with its events.
 */

/** One traffic event, parsed and ready to evaluate. */
export interface TrafficToEvaluate {
  event: TrafficEvent;
  connection: ParsedConnection;
  /** The event time in ms since the epoch. */
  timeMs: number;
}

/** One event evaluated against a live policy version and each of its ACTIVE experiments. */
export interface Evaluation extends TrafficToEvaluate {
  view: PolicyView;
  live: PreviewVerdict;
  /** One verdict per `view.active`, in that order. */
  experiments: PreviewVerdict[];
}

export function evaluate(view: PolicyView, traffic: TrafficToEvaluate): Evaluation {
  const live = view.live.evaluateParsed(traffic.connection);
  const experiments = view.active.map((target) => target.policy.evaluateParsed(traffic.connection));
  return {
    event: traffic.event,
    connection: traffic.connection,
    timeMs: traffic.timeMs,
    view,
    live,
    experiments,
  };
}

/** Changed decisions of one flow: the connection without its source port, and both deciding rules. */
export interface FlowTally {
  direction: 'INGRESS' | 'EGRESS';
  /** Canonical text (dotted quad, or eight hex groups). */
  srcIp: string;
  destIp: string;
  /** The protocol's name, or its number for protocols without one. */
  protocol: string;
  destPort?: number;
  live: PreviewVerdict;
  experiment: PreviewVerdict;
  count: number;
  firstMs: number;
  lastMs: number;
  /** The first events of the flow, at most PREVIEW_FLOW_SAMPLES. */
  samples: PreviewFlowSample[];
}

/** Events another ACTIVE experiment on the same policy decides differently, and their flows. */
export interface DisagreementTally {
  other: ActiveExperiment;
  events: number;
  /** By flow key (the connection without its source port, and this experiment's action). */
  flows: Map<string, DisagreementFlow>;
}

/** A connection (without source port) two experiments decide differently. */
export interface DisagreementFlow {
  direction: 'INGRESS' | 'EGRESS';
  srcIp: string;
  destIp: string;
  protocol: string;
  destPort?: number;
  /** This configuration's experiment's action; the other experiment's is the opposite. */
  action: 'allow' | 'deny';
  count: number;
}

/** What some evaluations add to one configuration (experiment etag × live policy etag). */
export class ConfigurationBatch {
  readonly totals = new ConfigurationTotals();
  /** Changed decisions by flow key (see flowKey). */
  readonly flows = new Map<string, FlowTally>();
  /** Events evaluated from messages JetStream delivered more than once (a crash, a timeout, a replica gone). */
  redelivered = 0;
  /** Messages of this configuration's policy dead-lettered while it was ACTIVE, by reason. */
  readonly deadLettered = new Map<string, number>();
  /** By the other experiment's name and etag: what it decides differently (two or more ACTIVE). */
  readonly disagreements = new Map<string, DisagreementTally>();

  constructor(readonly target: ActiveExperiment) {}

  /** `connection` is connectionKey(evaluation.connection), when the caller has it already. */
  add(
    evaluation: Evaluation,
    experiment: PreviewVerdict,
    connection = connectionKey(evaluation.connection),
  ): void {
    const { live, timeMs, event } = evaluation;
    this.totals.add(live, experiment, timeMs);
    if (live.action === experiment.action) return;
    const key = `${connection}|${live.rulePriority}|${experiment.rulePriority}`;
    let flow = this.flows.get(key);
    if (!flow) {
      flow = {
        ...flowConnection(evaluation.connection),
        live,
        experiment,
        count: 0,
        firstMs: timeMs,
        lastMs: timeMs,
        samples: [],
      };
      this.flows.set(key, flow);
    }
    flow.count++;
    if (timeMs < flow.firstMs) flow.firstMs = timeMs;
    if (timeMs > flow.lastMs) flow.lastMs = timeMs;
    if (flow.samples.length < PREVIEW_FLOW_SAMPLES) {
      flow.samples.push({
        trafficEventId: event.id,
        eventTime: event.time,
        ...(event.srcPort === undefined ? {} : { srcPort: event.srcPort }),
      });
    }
  }
}

/** Counts one event `other` decides differently from this configuration's experiment (`action`). */
function disagree(
  batch: ConfigurationBatch,
  other: ActiveExperiment,
  evaluation: Evaluation,
  action: 'allow' | 'deny',
  connection: string,
): void {
  let tally = batch.disagreements.get(other.keys.version);
  if (!tally)
    batch.disagreements.set(other.keys.version, (tally = { other, events: 0, flows: new Map() }));
  tally.events++;
  const key = `${connection}|${action}`;
  let flow = tally.flows.get(key);
  if (!flow) {
    flow = { ...flowConnection(evaluation.connection), action, count: 0 };
    tally.flows.set(key, flow);
  }
  flow.count++;
}

/** Aggregates evaluations by configuration. */
export function aggregate(evaluations: Iterable<Evaluation>): ConfigurationBatch[] {
  return aggregateMessages([{ evaluations: [...evaluations], redelivered: false }], []);
}

/** The evaluations of one traffic message, and whether JetStream delivered it before. */
export interface EvaluatedTraffic {
  evaluations: readonly Evaluation[];
  redelivered: boolean;
}

/** A traffic message dead-lettered while its policy had ACTIVE experiments (`targets`). */
export interface LostTraffic {
  reason: string;
  targets: readonly ActiveExperiment[];
}

/**
 * Aggregates a batch by configuration: the evaluations, the events that needed a redelivery,
 * and the messages dead-lettered, which every configuration ACTIVE on their policy misses.
 */
export function aggregateMessages(
  messages: Iterable<EvaluatedTraffic>,
  lost: Iterable<LostTraffic>,
): ConfigurationBatch[] {
  const batches = new Map<string, ConfigurationBatch>();
  const batchOf = (target: ActiveExperiment) => {
    let batch = batches.get(target.keys.configuration);
    if (!batch) batches.set(target.keys.configuration, (batch = new ConfigurationBatch(target)));
    return batch;
  };
  for (const { evaluations, redelivered } of messages) {
    for (const evaluation of evaluations) {
      const { active } = evaluation.view;
      const { experiments, live } = evaluation;
      // The connection's key, built once per event and only when a flow or a disagreement needs it.
      const anyDiffers = experiments.some(
        (e) => e.action !== live.action || e.action !== experiments[0].action,
      );
      const connection = anyDiffers ? connectionKey(evaluation.connection) : '';
      for (let i = 0; i < active.length; i++) {
        const batch = batchOf(active[i]);
        const action = experiments[i].action;
        batch.add(evaluation, experiments[i], connection);
        if (redelivered) batch.redelivered++;
        // Two or more experiments on one policy: each one's report says where the others differ.
        for (let j = 0; j < active.length; j++) {
          if (j !== i && experiments[j].action !== action)
            disagree(batch, active[j], evaluation, action, connection);
        }
      }
    }
  }
  for (const { reason, targets } of lost) {
    for (const target of targets) {
      const batch = batchOf(target);
      batch.deadLettered.set(reason, (batch.deadLettered.get(reason) ?? 0) + 1);
    }
  }
  return [...batches.values()];
}

/**
 * A connection without its source port, as parsed: two connections with equal keys are one flow
 * (a flow's key adds both deciding rules), so any spelling of one address is one key.
 */
const connectionKey = (c: ParsedConnection) =>
  `${c.direction}|${c.srcFamily}:${c.s0}:${c.s1}:${c.s2}:${c.s3}|${c.destFamily}:${c.d0}:${c.d1}:${c.d2}:${c.d3}|${c.protocol}|${c.portKey}`;

/** A connection without its source port, as flows write it (canonical addresses, protocol names). */
function flowConnection(
  c: ParsedConnection,
): Pick<FlowTally, 'direction' | 'srcIp' | 'destIp' | 'protocol' | 'destPort'> {
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
