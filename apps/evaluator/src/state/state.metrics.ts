import { Counter, Gauge, Registry } from 'prom-client';

/** The snapshot's Prometheus metrics (absent when the app runs without a registry). */
export class StateMetrics {
  readonly applied: Counter<'outcome'>;
  readonly ready: Gauge;
  readonly policies: Gauge;
  readonly active: Gauge;

  constructor(registry: Registry) {
    const registers = [registry];
    this.applied = new Counter({
      name: 'evaluator_state_events_total',
      help: 'EXPERIMENT_STATE entries received, by outcome (applied; ignored: an old version; rejected).',
      labelNames: ['outcome'],
      registers,
    });
    this.ready = new Gauge({
      name: 'evaluator_snapshot_loaded',
      help: '1 once the snapshot of live policies and experiments is loaded.',
      registers,
    });
    this.policies = new Gauge({
      name: 'evaluator_live_policies',
      help: 'Live policies held.',
      registers,
    });
    this.active = new Gauge({
      name: 'evaluator_active_experiments',
      help: 'ACTIVE experiments being previewed.',
      registers,
    });
  }
}
