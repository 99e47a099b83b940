import { DynamicModule, Module } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import { stdTimeFunctions } from 'pino';
import { RpcRequestLogging } from './rpc-request-logging';

export interface LoggingOptions {
  service: string;
  level: string;
}

const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Probes and scrapes are not logged: a launcher or kubelet asks every second, and a service
 * still starting answers /readyz 503 by design. Under Fastify the middleware sees `url` relative
 * to where it is mounted; `originalUrl` is the path asked for.
 */
export function isQuietRequest(req: IncomingMessage & { originalUrl?: string }): boolean {
  const path = (req.originalUrl ?? req.url ?? '').split('?')[0];
  return QUIET_PATHS.has(path);
}

/**
 * The level of a request's log line: a 4xx is the client's mistake, answered as designed, so it
 * is info like any other answer; only a failure of ours (5xx, or an error thrown) is an error.
 */
export function httpLogLevel(statusCode: number, error?: unknown): 'info' | 'error' {
  return error || statusCode >= 500 ? 'error' : 'info';
}

/**
 * pino JSON logs for one service: every line has the service name; every HTTP request and
 * every NATS request handled gets a request id (taken from `x-request-id` when the caller
 * sent one), echoed in the response and present on every line logged while handling it.
 */
@Module({})
export class LoggingModule {
  static forRoot({ service, level }: LoggingOptions): DynamicModule {
    return {
      module: LoggingModule,
      global: true,
      imports: [
        LoggerModule.forRoot({
          pinoHttp: {
            level,
            base: { service },
            timestamp: stdTimeFunctions.isoTime,
            formatters: { level: (label: string) => ({ level: label }) },
            redact: {
              paths: [
                'req.headers.authorization',
                'req.headers["x-auth-token"]',
                'req.headers.cookie',
              ],
              censor: '[redacted]',
            },
            autoLogging: { ignore: isQuietRequest },
            customLogLevel: (_req, res, err) => httpLogLevel(res.statusCode, err),
          },
        }),
      ],
      providers: [RpcRequestLogging],
      exports: [LoggerModule, RpcRequestLogging],
    };
  }
}
