import { CanActivate, ExecutionContext, HttpException, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import {
  INSPECTION_RULES_MINOR,
  IRONIC_MAX_VERSION,
  IRONIC_MAX_VERSION_HEADER,
  IRONIC_MIN_VERSION,
  IRONIC_MIN_VERSION_HEADER,
  IRONIC_VERSION_HEADER,
  OPENSTACK_REQUEST_ID_HEADERS,
  formatVersion,
  negotiateVersion,
  openstackRequestId,
} from './ironic-api';

export function setIronicHeaders(request: FastifyRequest, reply: FastifyReply): void {
  void reply.header(IRONIC_MIN_VERSION_HEADER, formatVersion(IRONIC_MIN_VERSION));
  void reply.header(IRONIC_MAX_VERSION_HEADER, formatVersion(IRONIC_MAX_VERSION));
  if (!reply.hasHeader(OPENSTACK_REQUEST_ID_HEADERS[0])) {
    const id = openstackRequestId(request.headers, String(request.id), randomUUID);
    for (const name of OPENSTACK_REQUEST_ID_HEADERS) void reply.header(name, id);
  }
}

/** After authentication, as Keystone's middleware comes first in Ironic; below 1.96 reads are 404, changes 405. */
@Injectable()
export class IronicApiVersionGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    setIronicHeaders(request, reply);
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
