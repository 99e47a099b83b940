import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { StatusError } from '@rollout/contracts';
import { IS_PUBLIC_ROUTE } from '@rollout/platform/health';
import type { FastifyRequest } from 'fastify';
import { currentHttpClient } from '../http/client-context';
import { ACCEPTS_X_AUTH_TOKEN, AuthenticatedRequest, REQUIRED_ROLE } from './auth.decorators';
import { Authenticator } from './authenticator';
import { Role, canSeeProject, hasRole } from './principal';

/**
 * 401 without saying which part was wrong; 404 (not 403) for a project not among the principal's,
 * so other teams' projects are not revealed.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly reflector: Reflector,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (
      context.getType() !== 'http' ||
      this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_ROUTE, [
        context.getHandler(),
        context.getClass(),
      ])
    )
      return true;
    const request = context.switchToHttp().getRequest<FastifyRequest & AuthenticatedRequest>();
    const openstackToken = request.headers['x-auth-token'];
    const authorization =
      request.headers.authorization ??
      (typeof openstackToken === 'string' &&
      this.reflector.getAllAndOverride<boolean>(ACCEPTS_X_AUTH_TOKEN, [
        context.getHandler(),
        context.getClass(),
      ])
        ? `Bearer ${openstackToken}`
        : undefined);
    const principal = this.authenticator.authenticate(authorization);
    if (!principal) {
      throw StatusError.withReason(
        'UNAUTHENTICATED',
        'A valid bearer token is required.',
        'UNAUTHENTICATED',
      );
    }
    request.principal = principal;
    const client = currentHttpClient();
    if (client)
      client.actor = {
        actor: principal.name,
        roles: principal.roles,
        projects: principal.projects,
      };
    const project = (request.params as Record<string, unknown> | undefined)?.project;
    if (typeof project === 'string' && !canSeeProject(principal, project)) {
      throw StatusError.withReason(
        'NOT_FOUND',
        `Project "${project}" not found.`,
        'PROJECT_NOT_FOUND',
      );
    }
    const needed =
      this.reflector.getAllAndOverride<Role | undefined>(REQUIRED_ROLE, [
        context.getHandler(),
        context.getClass(),
      ]) ?? (request.method === 'GET' || request.method === 'HEAD' ? 'viewer' : 'editor');
    if (!hasRole(principal, needed)) {
      throw StatusError.withReason(
        'PERMISSION_DENIED',
        `This needs the ${needed} role.`,
        'ROLE_REQUIRED',
        {
          role: needed,
        },
      );
    }
    return true;
  }
}
