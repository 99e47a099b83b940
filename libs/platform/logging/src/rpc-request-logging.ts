import { Injectable } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
// nestjs-pino keeps its per-request logger here; HTTP requests get it from its middleware,
// NATS requests from this hook, so handler code logs the same way under both.
import { Store, storage } from 'nestjs-pino/storage';
import { REQUEST_ID_HEADER, requestIdFrom } from './request-id';

/**
 * Gives every NATS request a request-scoped logger carrying the caller's request id and the
 * subject. A hook of the NATS transport (RpcRequestHook, matched by shape): the service kit
 * installs it on the RPC server.
 */
@Injectable()
export class RpcRequestLogging {
  constructor(private readonly logger: PinoLogger) {
    logger.setContext('rpc');
  }

  begin(request: { subject: string; headers?: { get(name: string): string } }) {
    const child = this.logger.logger.child({
      reqId: requestIdFrom(request.headers?.get(REQUEST_ID_HEADER)),
      subject: request.subject,
    });
    const started = process.hrtime.bigint();
    return {
      run: <T>(handle: () => T): T => storage.run(new Store(child), handle),
      end: (failed: boolean) =>
        child.debug({ ms: Number(process.hrtime.bigint() - started) / 1e6, failed }, 'rpc handled'),
    };
  }
}
