import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { toStatus } from '@rollout/platform/errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { setIronicHeaders } from './ironic-api.guard';
import { ironicErrorBody } from './ironic-api';

/** The message a client should read: Nest's own exceptions (validation) keep theirs in `response.message`. */
function messageOf(exception: unknown, fallback: string): string {
  if (!(exception instanceof HttpException)) return fallback;
  const body = exception.getResponse();
  if (typeof body === 'string') return body;
  if (typeof body === 'object' && body !== null && 'message' in body) {
    const message = (body as { message: unknown }).message;
    return Array.isArray(message) ? message.join('; ') : String(message);
  }
  return fallback;
}

/** Ironic's clients parse nothing but `{"error_message": "<fault JSON>"}`. */
@Catch()
export class IronicErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('IronicErrorFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    const { status, errorId } = toStatus(exception);
    if (errorId) {
      const requestId = request.id;
      this.logger.error(
        { err: exception, errorId, requestId },
        status.status === 'UNAVAILABLE' ? 'a dependency is unavailable' : 'unexpected error',
      );
    }
    if (reply.sent) return;
    setIronicHeaders(request, reply);
    void reply
      .status(status.code)
      .header('content-type', 'application/json')
      .send(ironicErrorBody(status.code, messageOf(exception, status.message)));
  }
}
