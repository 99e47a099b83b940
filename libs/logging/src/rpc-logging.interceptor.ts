import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { NatsContext } from '@nestjs/microservices';
import { PinoLogger } from 'nestjs-pino';
// nestjs-pino keeps its per-request logger here; HTTP requests get it from its middleware,
// NATS requests from this interceptor, so handler code logs the same way under both.
import { Store, storage } from 'nestjs-pino/storage';
import { Observable, tap } from 'rxjs';
import { REQUEST_ID_HEADER, requestIdFrom } from './request-id';

/** Gives every NATS request a request-scoped logger carrying the caller's request id. */
@Injectable()
export class RpcLoggingInterceptor implements NestInterceptor {
  constructor(private readonly logger: PinoLogger) {
    logger.setContext('rpc');
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'rpc') return next.handle();
    const nats = context.switchToRpc().getContext<NatsContext>();
    const subject = nats.getSubject();
    const reqId = requestIdFrom(nats.getHeaders()?.get(REQUEST_ID_HEADER));
    const child = this.logger.logger.child({ reqId, subject });
    const started = process.hrtime.bigint();
    return new Observable((subscriber) =>
      storage.run(new Store(child), () =>
        next
          .handle()
          .pipe(
            tap({
              complete: () =>
                child.debug({ ms: Number(process.hrtime.bigint() - started) / 1e6 }, 'rpc handled'),
            }),
          )
          .subscribe(subscriber),
      ),
    );
  }
}
