import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { ErrorResponse, Status } from '@rollout/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toStatus } from './to-status';

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

const METHODS = ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT'] as const;

/** A wrong method is 405, not 404. */
function allowedMethods(request: FastifyRequest): string[] {
  if (!request.is404 || typeof request.server?.findRoute !== 'function') return [];
  const url = request.url.split('?')[0];
  return METHODS.filter((method) => request.server.findRoute({ method, url }) !== null);
}

const mebibytes = (bytes: number) => `${+(bytes / 1024 / 1024).toFixed(2)} MiB`;

function explained(status: Status, request: FastifyRequest, reply: FastifyReply): Status {
  if (status.code === 413 && request.routeOptions?.bodyLimit) {
    const limit = request.routeOptions.bodyLimit;
    const message = `The request body is larger than the limit of ${limit} bytes (${mebibytes(limit)}).`;
    return { ...status, message };
  }
  const allowed = status.code === 404 ? allowedMethods(request) : [];
  if (allowed.length === 0) return status;
  void reply.header('allow', allowed.join(', '));
  const listed = `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`;
  return {
    code: 405,
    status: 'UNIMPLEMENTED',
    message: `${request.method} is not allowed here: use ${allowed.length > 1 ? listed : allowed[0]}.`,
    details: [],
  };
}

/** `retryAfterSeconds` said to HTTP clients the standard way too. */
function retryAfterSeconds(status: Status): string | undefined {
  for (const detail of status.details)
    if (detail['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo') {
      const seconds = detail.metadata?.retryAfterSeconds;
      if (seconds && /^[0-9]{1,6}$/.test(seconds)) return seconds;
    }
  return undefined;
}

/** Everything a client sees is `{ "error": Status }`. */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpErrorFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    const { status, errorId } = toStatus(exception);
    const requestId = request.id;
    if (errorId) {
      this.logger.error(
        { err: exception, errorId, requestId },
        status.status === 'UNAVAILABLE' ? 'a dependency is unavailable' : 'unexpected error',
      );
    }
    const error = explained(unwrapNestMessage(exception, status), request, response);
    if (requestId) {
      error.details = [
        ...error.details,
        { '@type': 'type.googleapis.com/google.rpc.RequestInfo', requestId },
      ];
    }
    const body: ErrorResponse = { error };
    const retryAfter = retryAfterSeconds(error);
    if (retryAfter !== undefined && !response.getHeader('retry-after'))
      void response.header('Retry-After', retryAfter);
    if (!response.sent) void response.status(error.code).send(body);
  }
}
