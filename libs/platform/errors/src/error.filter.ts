import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import { HttpErrorFilter } from './http-error.filter';
import { RpcErrorFilter } from './rpc-error.filter';

/** Nest applies one catch-all filter per application, and HTTP and NATS handlers share one. */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly http = new HttpErrorFilter();
  private readonly rpc = new RpcErrorFilter();

  catch(exception: unknown, host: ArgumentsHost) {
    return host.getType() === 'rpc'
      ? this.rpc.catch(exception, host)
      : this.http.catch(exception, host);
  }
}
