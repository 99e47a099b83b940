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
 * Probes are asked every second, and a starting service answers /readyz 503 by design. Under
 * Fastify `url` is relative to the mount point; `originalUrl` is the path asked for.
 */
export function isQuietRequest(req: IncomingMessage & { originalUrl?: string }): boolean {
  const path = (req.originalUrl ?? req.url ?? '').split('?')[0];
  return QUIET_PATHS.has(path);
}

/** A 4xx is the client's mistake, answered as designed: info. */
export function httpLogLevel(statusCode: number, error?: unknown): 'info' | 'error' {
  return error || statusCode >= 500 ? 'error' : 'info';
}

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
