import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { BaseConfig } from '@rollout/config';
import { ErrorFilter } from '@rollout/errors';
import { NATS_CONNECTION, NatsNamespace, NatsRpcServer } from '@rollout/nats';
import { Logger } from 'nestjs-pino';

export interface RunServiceOptions {
  name: string;
  config: BaseConfig;
  module: unknown;
  /** Serve NATS request/reply handlers (`@MessagePattern`) with the service's queue group. */
  rpc: boolean;
  /** App-specific HTTP setup (OpenAPI docs, validation, body limits) before listening. */
  configureHttp?: (app: INestApplication) => void | Promise<void>;
}

/**
 * Boots a service: HTTP (health, metrics, and the API where there is one) and, when asked,
 * NATS request/reply on the shared connection. Stops gracefully on SIGTERM/SIGINT within
 * SHUTDOWN_TIMEOUT_MS, and when a supervising launcher's IPC channel goes away, so a
 * killed launcher leaves no orphans. A failure to start is one log line and exit code 1.
 */
export async function runService(options: RunServiceOptions): Promise<INestApplication> {
  const { name, config } = options;
  let app: INestApplication;
  try {
    // Nest's own logger stays off until pino takes over, so a failed start is one clean line.
    app = await NestFactory.create(options.module as never, { logger: false, abortOnError: false });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${name}: failed to start: ${reason}\n`);
    process.exit(1);
  }
  app.useLogger(app.get(Logger));
  app.useGlobalFilters(new ErrorFilter());
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  await options.configureHttp?.(app);
  if (options.rpc) {
    app.connectMicroservice(
      { strategy: new NatsRpcServer(app.get(NATS_CONNECTION), { queue: name, namespace: app.get(NatsNamespace) }) },
      { inheritAppConfig: true },
    );
    await app.startAllMicroservices();
  }
  await app.listen(config.PORT, config.HOST);
  app.get(Logger).log(`${name} listening on http://${config.HOST}:${config.PORT}`);

  const forceExit = () => setTimeout(() => process.exit(1), config.SHUTDOWN_TIMEOUT_MS).unref();
  process.once('SIGTERM', forceExit);
  process.once('SIGINT', forceExit);
  if (process.send) {
    process.once('disconnect', () => {
      forceExit();
      void app.close().then(() => process.exit(0));
    });
  }
  return app;
}
