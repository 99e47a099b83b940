import { Injectable } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
// nestjs-pino's per-request logger store, so handlers log the same way under HTTP and NATS.
import { Store, storage } from 'nestjs-pino/storage';
import { REQUEST_ID_HEADER, requestIdFrom } from './request-id';

/** A NATS transport hook (RpcRequestHook, matched by shape). */
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
