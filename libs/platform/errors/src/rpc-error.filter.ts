import { ArgumentsHost, Catch, Logger, RpcExceptionFilter } from '@nestjs/common';
import type { Status } from '@rollout/contracts';
import { Observable, throwError } from 'rxjs';
import { toStatus } from './to-status';

/** Every handler failure crosses NATS as a Status, which the HTTP edge passes on unchanged. */
@Catch()
export class RpcErrorFilter implements RpcExceptionFilter<unknown> {
  private readonly logger = new Logger('RpcErrorFilter');

  catch(exception: unknown, host: ArgumentsHost): Observable<Status> {
    const { status, errorId } = toStatus(exception);
    if (errorId) {
      const subject =
        host.getType() === 'rpc'
          ? String(host.switchToRpc().getContext()?.getSubject?.())
          : undefined;
      this.logger.error(
        { err: exception, errorId, subject },
        status.status === 'UNAVAILABLE' ? 'a dependency is unavailable' : 'unexpected error',
      );
    }
    return throwError(() => status);
  }
}
