import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { StatusError, ASSERTION_CLOCK_SKEW_MS, ASSERTION_MAX_TTL_MS } from '@rollout/contracts';
import type { BaseConfig } from '@rollout/platform/config';
import { ErrorFilter } from '@rollout/platform/errors';
import { REQUEST_ID_HEADER, RpcRequestLogging, httpRequestId } from '@rollout/platform/logging';
import { RequestMetrics } from '@rollout/platform/metrics';
import {
  NATS_CONNECTION,
  NatsNamespace,
  NatsRpcServer,
  RpcRequestGate,
} from '@rollout/platform/nats';
import {
  ActorAssertionGate,
  ActorAssertionVerifier,
  SharedAssertionIds,
  parseBusKey,
} from '@rollout/platform/bus-security';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { NatsConnection } from 'nats';
import { Logger } from 'nestjs-pino';

export interface ServiceAppOptions {
  name: string;
  config: Pick<BaseConfig, 'PORT' | 'HOST'> &
    Partial<Pick<BaseConfig, 'NODE_ENV' | 'BUS_VERIFY_KEYS'>>;
  module: unknown;
  rpc: boolean;
  /** Fastify's default, 1 MiB, when unset. */
  bodyLimitBytes?: number;
  ownBodyParsers?: boolean;
  configureHttp?: (app: INestApplication) => void | Promise<void>;
}

/** The one way every service runs, in production and in tests (PORT 0, read the port back). */
export async function startServiceApp(options: ServiceAppOptions): Promise<INestApplication> {
  // Fastify: its empty handler costs a fifth of Express's (test/bench/floors.bench.ts).
  // Nest's logger stays off until pino takes over, so a failed start is one clean line.
  const adapter = new FastifyAdapter({
    bodyLimit: options.bodyLimitBytes,
    genReqId: httpRequestId,
    // E.g. a path that is not UTF-8 once percent-decoded: answered in the one error model.
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
      const status = StatusError.invalidArgument(
        error.code === 'FST_ERR_BAD_URL'
          ? 'The request path is not valid percent-encoded UTF-8.'
          : error.message,
      ).toStatus();
      void reply.code(status.code).send({ error: status });
    },
  });
  adapter.getInstance().addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  const app = await NestFactory.create(options.module as never, adapter, {
    logger: false,
    abortOnError: false,
    bodyParser: !options.ownBodyParsers,
  });
  try {
    const metrics = app.get(RequestMetrics);
    adapter.getInstance().addHook('onResponse', (request, reply, done) => {
      metrics.http(
        request.method,
        request.routeOptions.url,
        reply.statusCode,
        reply.elapsedTime / 1000,
      );
      done();
    });
    app.useLogger(app.get(Logger));
    app.useGlobalFilters(new ErrorFilter());
    await options.configureHttp?.(app);
    if (options.rpc) {
      const strategy = new NatsRpcServer(app.get(NATS_CONNECTION), {
        queue: options.name,
        namespace: app.get(NatsNamespace),
        hooks: [app.get(RpcRequestLogging), metrics],
        gate: await actorGate(
          options,
          app.get(Logger),
          app.get(NatsNamespace),
          app.get(NATS_CONNECTION),
        ),
      });
      app.connectMicroservice({ strategy }, { inheritAppConfig: true });
      await app.startAllMicroservices();
    }
    await app.listen(options.config.PORT, options.config.HOST);
    return app;
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
}

/** Without keys nothing is checked and the service says so at boot; production refuses to start that way. */
async function actorGate(
  { name, config }: ServiceAppOptions,
  logger: Logger,
  namespace: NatsNamespace,
  connection: NatsConnection,
): Promise<RpcRequestGate | undefined> {
  const keys = (config.BUS_VERIFY_KEYS ?? []).map((text) => parseBusKey(text));
  if (keys.length === 0) {
    if (config.NODE_ENV === 'production')
      throw new Error(
        "BUS_VERIFY_KEYS must be set in production: every request's actor assertion is checked against them",
      );
    logger.warn(
      `${name}: BUS_VERIFY_KEYS is not set: requests on NATS are served without an actor assertion, as whoever they claim to be (development only)`,
    );
    return undefined;
  }
  if (keys.some((key) => !key))
    throw new Error(
      'BUS_VERIFY_KEYS must be <key id>:<32-byte Ed25519 public key, base64url>, comma-separated',
    );
  return new ActorAssertionGate(
    new ActorAssertionVerifier(
      keys.filter((key) => key !== undefined),
      { maxTtlMs: ASSERTION_MAX_TTL_MS, clockSkewMs: ASSERTION_CLOCK_SKEW_MS, namespace },
    ),
    { sharedIds: new SharedAssertionIds(connection.jetstream(), namespace), namespace },
  );
}

/** Also stops when a supervising launcher's IPC channel goes away, so a killed launcher leaves no orphans. */
export async function runService(
  options: ServiceAppOptions & { config: BaseConfig },
): Promise<void> {
  const { name, config } = options;
  let app: INestApplication;
  try {
    app = await startServiceApp(options);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${name}: failed to start: ${reason}\n`);
    process.exit(1);
  }
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
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
}
