import { DynamicModule, Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import type { EnforcementConfig } from '@rollout/domain/enforcement';
import { AdapterClient } from '../adapters/adapter-client';
import { AdapterSessions } from '../adapters/adapter-sessions';
import { SessionCloses } from '../adapters/session-closes.job';
import { SessionClosesRepository } from '../adapters/session-closes.repository';
import { ENFORCEMENT_CONFIG, EnforcementConfigSource } from '../enforcement-config';
import { EXTERNAL_HTTP, Enforcement } from './enforcement';
import { EnforcementMetrics } from '../metrics/enforcement-metrics';
import { NodeExternalHttp } from './external-http';

class ExternalHttpLifecycle implements OnApplicationShutdown {
  constructor(@Inject(EXTERNAL_HTTP) private readonly http: NodeExternalHttp) {}
  onApplicationShutdown(): void {
    this.http.close();
  }
}

/** Global: every decision of the service runs through the chain. */
@Global()
@Module({})
export class ChainModule {
  static forRoot(enforcement: EnforcementConfig): DynamicModule {
    return {
      module: ChainModule,
      providers: [
        { provide: ENFORCEMENT_CONFIG, useValue: enforcement },
        EnforcementConfigSource,
        EnforcementMetrics,
        {
          provide: EXTERNAL_HTTP,
          useFactory: (metrics: EnforcementMetrics) => new NodeExternalHttp(metrics),
          inject: [EnforcementMetrics],
        },
        ExternalHttpLifecycle,
        AdapterClient,
        SessionClosesRepository,
        SessionCloses,
        AdapterSessions,
        Enforcement,
      ],
      exports: [Enforcement, EnforcementMetrics],
    };
  }
}
