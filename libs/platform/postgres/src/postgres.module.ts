import { DynamicModule, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import type { ReadinessCheck } from '@rollout/platform/health';
import { DataSource } from 'typeorm';
import { PostgresOptions, openDataSource } from './data-source';
import { READINESS_PROBE } from './postgres-statements';

@Injectable()
export class PostgresReadiness implements ReadinessCheck {
  readonly name = 'postgres';

  constructor(private readonly dataSource: DataSource) {}

  async check(): Promise<void> {
    await this.dataSource.query(READINESS_PROBE);
  }
}

@Injectable()
export class PostgresLifecycle implements OnApplicationShutdown {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

@Module({})
export class PostgresModule {
  static forRoot(options: PostgresOptions): DynamicModule {
    return {
      module: PostgresModule,
      global: true,
      providers: [
        { provide: DataSource, useFactory: () => openDataSource(options) },
        PostgresReadiness,
        PostgresLifecycle,
      ],
      exports: [DataSource, PostgresReadiness],
    };
  }
}
