import { Inject, Injectable, Logger } from '@nestjs/common';
import type {
  AdapterFilterObserver,
  ChainDecision,
  ChainObserver,
  ChainStep,
  EnforcementContext,
  Hook,
} from '@rollout/domain/enforcement';
import { METRICS_REGISTRY } from '@rollout/platform/metrics';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Steps that are not a plain allow are logged too (dryrun would-denials, fail-opens). */
@Injectable()
export class EnforcementMetrics implements ChainObserver, AdapterFilterObserver {
  private readonly logger = new Logger('Enforcement');
  private readonly steps: Counter<'hook' | 'filter' | 'result'>;
  private readonly decisions: Counter<'hook' | 'result'>;
  private readonly failOpen: Counter<'hook' | 'filter'>;
  private readonly external: Histogram<'hook' | 'outcome'>;
  private readonly chainSeconds: Histogram<'hook'>;
  private readonly cacheLookups: Counter<'handler' | 'result'>;
  private readonly adapterCalls: Histogram<'adapter' | 'method' | 'outcome'>;
  private readonly adapterErrors: Counter<'adapter' | 'method' | 'reason'>;
  private readonly sessions: Counter<'handler' | 'event'>;
  private readonly onEndDeliveries: Counter<'filter' | 'outcome'>;
  private readonly onEndOutbox: Gauge;
  private readonly sessionCloses: Counter<'adapter' | 'outcome'>;

  constructor(@Inject(METRICS_REGISTRY) registry: Registry) {
    this.steps = new Counter({
      name: 'enforcement_decisions_total',
      help: 'What each filter said, by hook (check_create, check_update, on_end), filter and result (allow, deny, would_deny, fail_open, error).',
      labelNames: ['hook', 'filter', 'result'],
      registers: [registry],
    });
    this.decisions = new Counter({
      name: 'enforcement_chain_decisions_total',
      help: 'Decisions of the whole chain, by hook and result (allowed, denied, exempted, notified).',
      labelNames: ['hook', 'result'],
      registers: [registry],
    });
    this.failOpen = new Counter({
      name: 'enforcement_fail_open_total',
      help: 'Requests let through because a filter could not decide and was configured to fail open (allow_on_error).',
      labelNames: ['hook', 'filter'],
      registers: [registry],
    });
    this.external = new Histogram({
      name: 'enforcement_external_call_duration_seconds',
      help: "Calls to the ExternalService filter's HTTP service, by hook and outcome (the HTTP status, timeout or error).",
      labelNames: ['hook', 'outcome'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5],
      registers: [registry],
    });
    this.chainSeconds = new Histogram({
      name: 'enforcement_chain_duration_seconds',
      help: 'Time the whole filter chain took for one check decision, by hook (adapter round trips and cache hits included).',
      labelNames: ['hook'],
      buckets: [
        0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
        1, 2, 5,
      ],
      registers: [registry],
    });
    this.cacheLookups = new Counter({
      name: 'enforcement_adapter_check_cache_total',
      help: 'Check-cache lookups of adapter filters, by handler and result (hit, miss).',
      labelNames: ['handler', 'result'],
      registers: [registry],
    });
    this.adapterCalls = new Histogram({
      name: 'enforcement_adapter_call_duration_seconds',
      help: 'Calls to adapters over NATS, by adapter, method and outcome (ok, down, timeout, bad_reply, transport).',
      labelNames: ['adapter', 'method', 'outcome'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5],
      registers: [registry],
    });
    this.adapterErrors = new Counter({
      name: 'enforcement_adapter_call_errors_total',
      help: 'Adapter calls that failed, by adapter, method and reason (down, timeout, bad_reply, transport).',
      labelNames: ['adapter', 'method', 'reason'],
      registers: [registry],
    });
    this.sessions = new Counter({
      name: 'enforcement_adapter_sessions_total',
      help: 'Adapter handler session events, by handler and event (opened, refused, closed).',
      labelNames: ['handler', 'event'],
      registers: [registry],
    });
    this.onEndDeliveries = new Counter({
      name: 'enforcement_on_end_deliveries_total',
      help: 'on_end attempts by filter and outcome (delivered; retry: failed, tried again later; abandoned: failed its last attempt).',
      labelNames: ['filter', 'outcome'],
      registers: [registry],
    });
    this.onEndOutbox = new Gauge({
      name: 'enforcement_on_end_outbox_pending',
      help: 'Ended leases whose on_end some filter has not yet taken (abandoned ones excluded), as of the last retry pass.',
      registers: [registry],
    });
    this.sessionCloses = new Counter({
      name: 'enforcement_adapter_session_closes_total',
      help: 'CloseSession attempts by adapter and outcome (closed, unknown: the adapter no longer knew it, retry: not acknowledged, tried again later).',
      labelNames: ['adapter', 'outcome'],
      registers: [registry],
    });
  }

  onEndDelivery(filter: string, outcome: 'delivered' | 'retry' | 'abandoned'): void {
    this.onEndDeliveries.inc({ filter, outcome });
  }

  onEndPending(count: number): void {
    this.onEndOutbox.set(count);
  }

  sessionClose(adapter: string, outcome: 'closed' | 'unknown' | 'retry'): void {
    this.sessionCloses.inc({ adapter, outcome });
  }

  onCacheLookup(handler: string, hit: boolean): void {
    this.cacheLookups.inc({ handler, result: hit ? 'hit' : 'miss' });
  }

  adapterCall(adapter: string, method: string, outcome: string, seconds: number): void {
    this.adapterCalls.observe({ adapter, method, outcome }, seconds);
    if (outcome !== 'ok') this.adapterErrors.inc({ adapter, method, reason: outcome });
  }

  sessionEvent(handler: string, event: 'opened' | 'refused' | 'closed'): void {
    this.sessions.inc({ handler, event });
  }

  onStep(hook: Hook, step: ChainStep, context: EnforcementContext): void {
    this.steps.inc({ hook, filter: step.filter, result: step.result });
    if (step.result === 'allow') return;
    const fields = {
      hook,
      filter: step.filter,
      project: context.projectId,
      reqId: context.requestId,
      reason: step.message,
    };
    switch (step.result) {
      case 'would_deny':
        this.logger.warn(fields, 'dryrun filter would deny');
        break;
      case 'fail_open':
        this.failOpen.inc({ hook, filter: step.filter });
        this.logger.warn(fields, 'filter failed open');
        break;
      case 'error':
        this.logger.warn(
          fields,
          hook === 'on_end' ? 'on_end notification failed' : 'filter failed; request refused',
        );
        break;
      default:
        this.logger.log(fields, 'filter denied');
    }
  }

  chainDuration(hook: Hook, seconds: number): void {
    this.chainSeconds.observe({ hook }, seconds);
  }

  onDecision(decision: ChainDecision): void {
    const result = decision.exempted
      ? 'exempted'
      : decision.hook === 'on_end'
        ? 'notified'
        : decision.allowed
          ? 'allowed'
          : 'denied';
    this.decisions.inc({ hook: decision.hook, result });
  }

  externalCall(hook: string, outcome: string, seconds: number): void {
    this.external.observe({ hook, outcome }, seconds);
  }
}
