import { CanActivate, ExecutionContext, HttpException, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  INSPECTION_RULES_MINOR,
  IRONIC_MAX_VERSION,
  IRONIC_MAX_VERSION_HEADER,
  IRONIC_MIN_VERSION,
  IRONIC_MIN_VERSION_HEADER,
  IRONIC_VERSION_HEADER,
  formatVersion,
  negotiateVersion,
} from './ironic-api';

/** Sets Ironic's minimum and maximum version headers, which Ironic sends on every answer. */
export function setVersionRange(reply: FastifyReply): void {
  void reply.header(IRONIC_MIN_VERSION_HEADER, formatVersion(IRONIC_MIN_VERSION));
  void reply.header(IRONIC_MAX_VERSION_HEADER, formatVersion(IRONIC_MAX_VERSION));
}

/**
 * Ironic's microversion negotiation on the inspection rules routes (after authentication, as
 * Keystone's middleware comes first in Ironic): the version served is echoed; an unusable
 * version is 406; a version older than 1.96 does not have the resource, which Ironic answers
 * 404 for reads and 405 for changes.
 */
@Injectable()
export class IronicApiVersionGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    setVersionRange(reply);
    const negotiated = negotiateVersion(request.headers);
    if ('notAcceptable' in negotiated) throw new HttpException(negotiated.notAcceptable, 406);
    void reply.header(IRONIC_VERSION_HEADER, formatVersion(negotiated.version));
    if (negotiated.version.minor < INSPECTION_RULES_MINOR) {
      const read = request.method === 'GET' || request.method === 'HEAD';
      throw new HttpException('The API version does not allow inspection rules', read ? 404 : 405);
    }
    return true;
  }
}
