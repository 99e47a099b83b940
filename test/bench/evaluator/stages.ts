/**
 * The decomposition: the evaluator's CPU per event split by stage, each pure stage run alone in
 * this process on the same backlog a scenario drained (its messages rebuilt byte for byte):
 * decoding, evaluation (the K+1 verdicts of every event), aggregation (the rest of evaluateBatch
 * and the counting window's merge) and the policy log's encoding. Transport (pull and ack) is the
 * raw consumer's CPU per message on the same stream; what the evaluator spends beyond these is its
 * store and publish path (the pg client, the NATS client's publishes, timers, GC of both).
 */
import { FirewallRule, trafficSubject } from '@rollout/contracts';
import { trafficV2alphaSubject } from '@rollout/contracts-alpha';
import { compilePolicy } from '@rollout/domain/firewall';
import {
  ActiveExperiment,
  CountingWindow,
  PolicyView,
  TrafficDecoder,
  TrafficMessage,
  compactEventRow,
  compactOutcomeJson,
  evaluateBatch,
  evaluatorOf,
  isRefused,
  isRejected,
  recordKeys,
} from '@rollout/domain/preview';
import { BATCH } from './config';
import { Traffic, toV2alpha } from './workload';

export interface Stages {
  decode: number;
  /** Of decode: the UTF-8 decoding and JSON.parse of the same bytes alone, the floor of a JSON decoder in Node. */
  parse: number;
  evaluate: number;
  aggregate: number;
  encode: number;
}

const POLICY = 'projects/bench/locations/global/firewallPolicies/edge';
const BATCH_MESSAGES = 1_000;

/** µs of this process's CPU per event for each stage (the best of three passes, against noise). */
// The bench publishes without Contract-Version headers, so the decoder is given none either.
export function stageCosts(
  major: 'v1' | 'v2alpha',
  traffic: Traffic,
  liveRules: FirewallRule[],
  experiments: { id: string; rules: FirewallRule[] }[],
): Stages {
  const view = viewOf(liveRules, experiments);
  const decoder = new TrafficDecoder('traffic.');
  const subject =
    major === 'v1'
      ? trafficSubject('bench', 'global', 'edge')
      : trafficV2alphaSubject('bench', 'global', 'edge');
  const messages = payloads(major, traffic);
  const best: Stages = {
    decode: Infinity,
    parse: Infinity,
    evaluate: Infinity,
    aggregate: Infinity,
    encode: Infinity,
  };
  for (let pass = 0; pass < 3; pass++) {
    const text = new TextDecoder('utf-8', { fatal: true });
    const parse = cpu(() => {
      for (const { data } of messages) JSON.parse(text.decode(data));
    });
    let decoded: TrafficMessage[] = [];
    const decode = cpu(() => {
      decoded = messages.map(({ data, id }, seq) => {
        const result = decoder.decode(subject, data, undefined, id);
        if (isRejected(result))
          throw new Error(`the bench's traffic was refused: ${result.reason}`);
        return { seq: seq + 1, redelivered: false, decoded: result };
      });
    });
    const evaluator = evaluatorOf(view);
    const evaluate = cpu(() => {
      for (const message of decoded)
        if (!isRefused(message.decoded))
          for (const event of message.decoded.events) evaluator.evaluate(event.connection);
    });
    const logs: ReturnType<typeof evaluateBatch>['logs'] = [];
    const tallyAndWindow = cpu(() => {
      let window = new CountingWindow();
      for (let from = 0; from < decoded.length; from += BATCH_MESSAGES) {
        const batch = evaluateBatch(decoded.slice(from, from + BATCH_MESSAGES), NONE, () => view);
        logs.push(...batch.logs);
        window.add(batch);
        if (window.batches === 4) window = new CountingWindow();
      }
    });
    const encode = cpu(() => {
      for (const log of logs) {
        const rows = log.events.map(
          (event, i) => `[${compactOutcomeJson(log.outcomes[i])},${compactEventRow(event)}]`,
        );
        Buffer.from(rows.join(','));
      }
    });
    best.decode = Math.min(best.decode, decode / traffic.count);
    best.parse = Math.min(best.parse, parse / traffic.count);
    best.evaluate = Math.min(best.evaluate, evaluate / traffic.count);
    best.aggregate = Math.min(
      best.aggregate,
      Math.max(0, tallyAndWindow - evaluate) / traffic.count,
    );
    best.encode = Math.min(best.encode, encode / traffic.count);
  }
  return best;
}

const NONE: ReadonlySet<number> = new Set();

/** µs of CPU `work` took. */
function cpu(work: () => void): number {
  const before = process.cpuUsage();
  work();
  const used = process.cpuUsage(before);
  return used.user + used.system;
}

/** The scenario's messages as published: one event each (v1), or batches of BATCH (v2alpha). */
function payloads(major: 'v1' | 'v2alpha', traffic: Traffic): { data: Buffer; id: string }[] {
  const messages: { data: Buffer; id: string }[] = [];
  if (major === 'v1') {
    for (let i = 0; i < traffic.count; i++) {
      const event = traffic.at(i);
      messages.push({ data: Buffer.from(JSON.stringify(event)), id: event.id });
    }
    return messages;
  }
  for (let i = 0; i < traffic.count; i += BATCH) {
    const events = [];
    for (let k = i; k < Math.min(traffic.count, i + BATCH); k++)
      events.push(toV2alpha(traffic.at(k)));
    messages.push({ data: Buffer.from(JSON.stringify({ events })), id: `batch-${events[0].id}` });
  }
  return messages;
}

function viewOf(
  liveRules: FirewallRule[],
  experiments: { id: string; rules: FirewallRule[] }[],
): PolicyView {
  const active = experiments.map(({ id, rules }): ActiveExperiment => {
    const name = `${POLICY}/experiments/${id}`;
    return {
      name,
      etag: `${id}-bench`,
      logSubject: `preview.v1.logs.bench.global.edge.${id}`,
      policy: compilePolicy({ rules }),
      liveEtag: 'live-bench',
      keys: recordKeys(name, `${id}-bench`, POLICY, 'live-bench'),
    };
  });
  return {
    name: POLICY,
    etag: 'live-bench',
    live: compilePolicy({ rules: liveRules }),
    logSubject: 'preview.v1.logs.bench.global.edge',
    active,
  };
}

/** The decomposition line of a scenario: each stage, and what the evaluator spent beyond them. */
export function decompositionText(
  stages: Stages,
  transportUs: number,
  evaluatorUs: number,
  postgresUs: number,
): string {
  const known = transportUs + stages.decode + stages.evaluate + stages.aggregate + stages.encode;
  const f = (n: number) => n.toFixed(1);
  return `transport (pull+ack) ${f(transportUs)}, decode ${f(stages.decode)} (JSON.parse alone ${f(stages.parse)}), evaluation ${f(stages.evaluate)}, aggregation ${f(stages.aggregate)}, log encoding ${f(stages.encode)}; store, publish and the rest ${f(Math.max(0, evaluatorUs - known))} (of the evaluator's ${f(evaluatorUs)}); Postgres backends ${f(postgresUs)} µs per event`;
}
