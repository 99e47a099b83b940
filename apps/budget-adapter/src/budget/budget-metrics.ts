import { Inject, Injectable } from '@nestjs/common';
import { METRICS_REGISTRY } from '@rollout/platform/metrics';
import { Counter, Histogram, Registry } from 'prom-client';
import type { Hours } from './budget.repository';

/** What the adapter did, for Prometheus: calls, sessions, grants and refunds. */
@Injectable()
export class BudgetMetrics {
  private readonly calls: Counter<'method' | 'status'>;
  private readonly duration: Histogram<'method'>;
  private readonly sessions: Counter<'event'>;
  private readonly grants: Counter<'resource_type'>;
  private readonly adjustments: Counter<'kind' | 'resource_type' | 'direction'>;

  constructor(@Inject(METRICS_REGISTRY) registry: Registry) {
    this.calls = new Counter({
      name: 'budget_adapter_calls_total',
      help: 'adapter.v1 calls answered, by method and status (OK or the canonical code).',
      labelNames: ['method', 'status'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'budget_adapter_call_duration_seconds',
      help: 'Time to answer an adapter.v1 call, by method.',
      labelNames: ['method'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers: [registry],
    });
    this.sessions = new Counter({
      name: 'budget_adapter_sessions_total',
      help: 'Session events: created (a new config), reused (CreateSession of an open config), released (CloseSession, references left), ended (the last reference closed).',
      labelNames: ['event'],
      registers: [registry],
    });
    this.grants = new Counter({
      name: 'budget_adapter_granted_hours_total',
      help: 'Resource-hours granted by HandleQuota (first answers only, not dedup replays), by resource type.',
      labelNames: ['resource_type'],
      registers: [registry],
    });
    this.adjustments = new Counter({
      name: 'budget_adapter_report_adjusted_hours_total',
      help: 'Resource-hours charged back (up) or refunded (down) by HandleReport, by report kind and resource type.',
      labelNames: ['kind', 'resource_type', 'direction'],
      registers: [registry],
    });
  }

  call(method: string, status: string, seconds: number): void {
    this.calls.inc({ method, status });
    this.duration.observe({ method }, seconds);
  }

  session(event: 'created' | 'reused' | 'released' | 'ended'): void {
    this.sessions.inc({ event });
  }

  granted(resourceType: string, hours: number): void {
    this.grants.inc({ resource_type: resourceType }, hours);
  }

  report(kind: string, delta: Hours): void {
    for (const [type, hours] of Object.entries(delta)) {
      this.adjustments.inc(
        { kind, resource_type: type, direction: hours > 0 ? 'up' : 'down' },
        Math.abs(hours),
      );
    }
  }
}
