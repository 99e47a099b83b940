import type { DynamicModule, Type } from '@nestjs/common';
import type { BaseConfig, DatabaseConfig } from '@rollout/platform/config';
import type { ServiceName } from '@rollout/contracts';
import { HealthModule, ReadinessCheck } from '@rollout/platform/health';
import { LoggingModule } from '@rollout/platform/logging';
import { MetricsModule } from '@rollout/platform/metrics';
import { ActorAssertionSigner, parseBusKey } from '@rollout/platform/bus-security';
import { ActorSigner, NatsModule, NatsReadiness } from '@rollout/platform/nats';
import { BusNeeds } from '@rollout/contracts';
import { PostgresModule, PostgresOptions, PostgresReadiness } from '@rollout/platform/postgres';
import { BUILD_VERSION } from './service-info';

export interface PlatformOptions {
  /** Or another process built on the kit (e.g. a policy adapter). */
  service: ServiceName | (string & {});
  config: BaseConfig & Partial<DatabaseConfig>;
  jetstream?: BusNeeds;
  database?: Pick<PostgresOptions, 'migrations' | 'entities'>;
  readiness?: Type<ReadinessCheck>[];
  /** The HTTP edge's key, or a system key (docs/bus-security.md). */
  actorSigner?: ActorSigner;
}

/** None without BUS_SIGNING_KEY. */
export function actorSignerOf(
  signingKey: string | undefined,
  ttlMs: number,
): ActorSigner | undefined {
  const key = signingKey ? parseBusKey(signingKey) : undefined;
  return key && new ActorAssertionSigner(key, ttlMs);
}

export function platformModules({
  service,
  config,
  jetstream,
  database,
  readiness = [],
  actorSigner,
}: PlatformOptions): DynamicModule[] {
  const checks: Type<ReadinessCheck>[] = [NatsReadiness];
  const modules: DynamicModule[] = [
    LoggingModule.forRoot({ service, level: config.LOG_LEVEL }),
    MetricsModule.forRoot({ service }),
    NatsModule.forRoot({
      name: service,
      version: BUILD_VERSION,
      servers: config.NATS_URL,
      user: config.NATS_USER,
      password: config.NATS_PASSWORD,
      token: config.NATS_TOKEN,
      namespace: config.NATS_NAMESPACE,
      jetstream,
      actorSigner,
    }),
  ];
  if (database) {
    if (!config.DATABASE_URL || !config.DATABASE_SCHEMA || !config.DATABASE_POOL_SIZE) {
      throw new Error(`${service} declares a database but its config has no DATABASE_* settings`);
    }
    modules.push(
      PostgresModule.forRoot({
        url: config.DATABASE_URL,
        password: config.DATABASE_PASSWORD,
        schema: config.DATABASE_SCHEMA,
        poolSize: config.DATABASE_POOL_SIZE,
        tls: {
          mode: config.DATABASE_SSL_MODE ?? 'disable',
          rootCert: config.DATABASE_SSL_ROOT_CERT,
        },
        applicationName: service,
        ...database,
      }),
    );
    checks.push(PostgresReadiness);
  }
  modules.push(HealthModule.forRoot([...checks, ...readiness]));
  return modules;
}
