import { DynamicModule, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { ENFORCEMENT_V1, SYSTEM_V1 } from '@rollout/contracts';
import type { EnforcementConfig } from '@rollout/domain/enforcement';
import { serviceModule } from '@rollout/platform/service-kit';
import { Config, ENFORCEMENT_SERVICE_CONFIG } from './config';
import { AdapterClient } from './adapters/adapter-client';
import { AdapterSessions } from './adapters/adapter-sessions';
import { SessionCloses } from './adapters/session-closes.job';
import { ENFORCEMENT_CONFIG, EnforcementConfigSource } from './enforcement-config';
import { EXTERNAL_HTTP, Enforcement } from './chain/enforcement';
import { EnforcementMetrics } from './chain/enforcement-metrics';
import { NodeExternalHttp } from './chain/external-http';
import { BlazarHooks } from './leases/blazar-hooks.application';
import { BlazarOnEnd } from './leases/blazar-on-end.application';
import { LeaseSweeper } from './leases/lease-sweeper.job';
import { LeaseAdmission } from './leases/lease-admission';
import { LeaseCommands } from './leases/lease-commands.application';
import { LeaseQueries } from './leases/lease-queries.application';
import { LeasesHandlers } from './leases/leases.handlers';
import { Ledger } from './ledger/ledger.repository';
import { OnEndOutbox } from './on-end/on-end-outbox.job';
import { OnEndOutboxRepository } from './on-end/on-end-outbox.repository';
import { SessionClosesRepository } from './adapters/session-closes.repository';
import { CreateLeaseLedger1764300000000 } from './migrations/1764300000000-create-lease-ledger';
import { CreateDeliveryOutboxes1766700000000 } from './migrations/1766700000000-create-delivery-outboxes';

/** Closes the external service's keep-alive connections at shutdown. */
class ExternalHttpLifecycle implements OnApplicationShutdown {
  constructor(@Inject(EXTERNAL_HTTP) private readonly http: NodeExternalHttp) {}
  onApplicationShutdown(): void {
    this.http.close();
  }
}

@Module({})
export class AppModule {
  /** `enforcement` is the validated filter chain file (main.ts reads it before anything connects). */
  static forRoot(config: Config, enforcement: EnforcementConfig): DynamicModule {
    return serviceModule({
      module: AppModule,
      service: 'enforcement-service',
      config,
      configToken: ENFORCEMENT_SERVICE_CONFIG,
      contracts: [SYSTEM_V1, ENFORCEMENT_V1],
      database: {
        migrations: [CreateLeaseLedger1764300000000, CreateDeliveryOutboxes1766700000000],
      },
      controllers: [LeasesHandlers],
      providers: [
        { provide: ENFORCEMENT_CONFIG, useValue: enforcement },
        EnforcementMetrics,
        {
          provide: EXTERNAL_HTTP,
          useFactory: (metrics: EnforcementMetrics) => new NodeExternalHttp(metrics),
          inject: [EnforcementMetrics],
        },
        ExternalHttpLifecycle,
        EnforcementConfigSource,
        AdapterClient,
        SessionClosesRepository,
        SessionCloses,
        AdapterSessions,
        Enforcement,
        Ledger,
        OnEndOutboxRepository,
        OnEndOutbox,
        LeaseAdmission,
        LeaseCommands,
        LeaseQueries,
        BlazarHooks,
        BlazarOnEnd,
        LeaseSweeper,
      ],
    });
  }
}
