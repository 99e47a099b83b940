import { Counter, Histogram, Registry } from 'prom-client';

/** The traffic path's Prometheus metrics (absent when the app runs without a registry). */
export class TrafficMetrics {
  readonly events: Counter<'outcome'>;
  readonly deadLetters: Counter<'reason'>;
  readonly clientEvents: Counter<'client' | 'contract'>;
  readonly messages: Counter<'outcome'>;
  readonly storeFailures: Counter;
  readonly batchSeconds: Histogram;

  constructor(registry: Registry) {
    const registers = [registry];
    this.events = new Counter({
      name: 'evaluator_traffic_events_total',
      help: 'Traffic events settled, by outcome (evaluated: events, a traffic.v2alpha batch counting each of its events; dead_lettered: messages).',
      labelNames: ['outcome'],
      registers,
    });
    this.deadLetters = new Counter({
      name: 'evaluator_dead_letters_total',
      help: 'Traffic messages sent to deadletter.v1.traffic, by reason (bad_subject, unknown_major, contract_mismatch, foreign_message_id, bad_json, invalid_event, bad_address, unknown_policy, unevaluable).',
      labelNames: ['reason'],
      registers,
    });
    this.clientEvents = new Counter({
      name: 'evaluator_traffic_client_events_total',
      help: 'Traffic events received, by publishing client (User-Agent product name; unknown when absent or malformed, other past the first 100 names) and contract (the traffic package its Contract-Version declares; unknown when absent, malformed or not one this evaluator reads).',
      labelNames: ['client', 'contract'],
      registers,
    });
    this.messages = new Counter({
      name: 'evaluator_counted_messages_total',
      help: 'Traffic messages with ACTIVE experiments, by outcome (counted; duplicate: counted before, by a delivery that crashed or by another replica).',
      labelNames: ['outcome'],
      registers,
    });
    this.storeFailures = new Counter({
      name: 'evaluator_store_failures_total',
      help: 'Batches that failed to publish or store and were retried.',
      registers,
    });
    this.batchSeconds = new Histogram({
      name: 'evaluator_batch_duration_seconds',
      help: 'Time to evaluate, publish and store one batch of traffic messages.',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
  }
}
