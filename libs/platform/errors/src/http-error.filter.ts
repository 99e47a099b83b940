import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { ErrorResponse, Status } from '@rollout/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toStatus } from './to-status';

/** Nest's own HttpException bodies carry the useful message in `response.message`. */
function unwrapNestMessage(exception: unknown, status: Status): Status {
  if (!(exception instanceof HttpException)) return status;
  const body = exception.getResponse();
  if (typeof body === 'object' && body !== null && 'message' in body) {
    const message = (body as { message: unknown }).message;
    const text = Array.isArray(message) ? message.join('; ') : String(message);
    return { ...status, message: text };
  }
  return status;
}

/** The gateway's only error mapping: everything a client sees is `{ "error": Status }`. */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpErrorFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<FastifyReply>();
    const { status, errorId } = toStatus(exception);
    const requestId = http.getRequest<FastifyRequest>().id;
    if (errorId) {
      this.logger.error(
        { err: exception, errorId, requestId },
        status.status === 'UNAVAILABLE' ? 'a dependency is unavailable' : 'unexpected error',
      );
    }
    const error = unwrapNestMessage(exception, status);
    if (requestId) {
      error.details = [
        ...error.details,
        { '@type': 'type.googleapis.com/google.rpc.RequestInfo', requestId },
      ];
    }
    const body: ErrorResponse = { error };
    if (!response.sent) void response.status(error.code).send(body);
  }
}
