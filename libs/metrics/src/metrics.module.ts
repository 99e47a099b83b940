import {
  CallHandler,
  Controller,
  DynamicModule,
  ExecutionContext,
  Get,
  Header,
  Inject,
  Injectable,
  Module,
  NestInterceptor,
} from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import type { NatsContext } from '@nestjs/microservices';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { Observable, tap } from 'rxjs';
import { ClientMetrics } from './client-metrics';
import { METRICS_REGISTRY } from './tokens';

export { METRICS_REGISTRY };

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

/** Counts and times every HTTP and NATS request this service handles. */
@Injectable()
export class RequestMetricsInterceptor implements NestInterceptor {
  private readonly duration: Histogram<'transport' | 'operation' | 'outcome'>;
  private readonly total: Counter<'transport' | 'operation' | 'outcome'>;

  constructor(@Inject(METRICS_REGISTRY) registry: Registry) {
    const labelNames = ['transport', 'operation', 'outcome'] as const;
    this.duration = new Histogram({
      name: 'server_request_duration_seconds',
      help: 'Time to handle a request, by transport (http, nats), route or subject, and outcome.',
      labelNames,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    });
    this.total = new Counter({
      name: 'server_requests_total',
      help: 'Requests handled, by transport (http, nats), route or subject, and outcome.',
      labelNames,
      registers: [registry],
    });
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const started = process.hrtime.bigint();
    const record = (outcome: string, operation: string, transport: string) => {
      const labels = { transport, operation, outcome };
      this.total.inc(labels);
      this.duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    };
    if (context.getType() === 'rpc') {
      const subject = context.switchToRpc().getContext<NatsContext>().getSubject();
      return next.handle().pipe(
        tap({ complete: () => record('ok', subject, 'nats'), error: () => record('error', subject, 'nats') }),
      );
    }
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    // The route pattern, never the raw URL, keeps label cardinality bounded.
    const route = `${request.method} ${request.routeOptions?.url ?? 'unmatched'}`;
    return next.handle().pipe(
      tap({
        complete: () => record(String(http.getResponse<FastifyReply>().statusCode), route, 'http'),
        error: () => record('error', route, 'http'),
      }),
    );
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
        { provide: APP_INTERCEPTOR, useClass: RequestMetricsInterceptor },
        ClientMetrics,
      ],
      exports: [METRICS_REGISTRY, ClientMetrics],
    };
  }
}
