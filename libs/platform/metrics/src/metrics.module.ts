import { Controller, DynamicModule, Get, Header, Inject, Injectable, Module } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '@rollout/platform/health';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ClientMetrics } from './client-metrics';
import { METRICS_REGISTRY } from './tokens';

export { METRICS_REGISTRY };

@Public()
@ApiExcludeController()
@Controller()
export class MetricsController {
  constructor(@Inject(METRICS_REGISTRY) private readonly registry: Registry) {}

  @Get('metrics')
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  scrape(): Promise<string> {
    return this.registry.metrics();
  }
}

/** Fed from a Fastify hook and an RpcRequestHook: neither path pays for a Nest interceptor per request. */
@Injectable()
export class RequestMetrics {
  private readonly duration: Histogram<'transport' | 'operation' | 'outcome'>;
  private readonly total: Counter<'transport' | 'operation' | 'outcome'>;

  constructor(@Inject(METRICS_REGISTRY) registry: Registry) {
    const labelNames = ['transport', 'operation', 'outcome'] as const;
    this.duration = new Histogram({
      name: 'server_request_duration_seconds',
      help: 'Time to handle a request, by transport (http, nats), route or subject, and outcome (HTTP status; ok or error for NATS).',
      labelNames,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    });
    this.total = new Counter({
      name: 'server_requests_total',
      help: 'Requests handled, by transport (http, nats), route or subject, and outcome (HTTP status; ok or error for NATS).',
      labelNames,
      registers: [registry],
    });
  }

  /** `route` is the pattern, never the raw URL, to bound label cardinality. */
  http(method: string, route: string | undefined, status: number, seconds: number): void {
    this.record(
      {
        transport: 'http',
        operation: `${method} ${route ?? 'unmatched'}`,
        outcome: String(status),
      },
      seconds,
    );
  }

  begin(request: { subject: string }) {
    const started = process.hrtime.bigint();
    return {
      end: (failed: boolean) =>
        this.record(
          { transport: 'nats', operation: request.subject, outcome: failed ? 'error' : 'ok' },
          Number(process.hrtime.bigint() - started) / 1e9,
        ),
    };
  }

  private record(
    labels: { transport: string; operation: string; outcome: string },
    seconds: number,
  ) {
    this.total.inc(labels);
    this.duration.observe(labels, seconds);
  }
}

@Module({})
export class MetricsModule {
  static forRoot({ service }: { service: string }): DynamicModule {
    return {
      module: MetricsModule,
      global: true,
      controllers: [MetricsController],
      providers: [
        {
          provide: METRICS_REGISTRY,
          useFactory: () => {
            const registry = new Registry();
            registry.setDefaultLabels({ service });
            collectDefaultMetrics({ register: registry });
            return registry;
          },
        },
        RequestMetrics,
        ClientMetrics,
      ],
      exports: [METRICS_REGISTRY, ClientMetrics, RequestMetrics],
    };
  }
}
