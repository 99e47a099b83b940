import { ExecutionContext, SetMetadata, createParamDecorator } from '@nestjs/common';
import type { Principal, Role } from './principal';

export const REQUIRED_ROLE = 'auth:required-role';

/**
 * The role a route needs. Without it: `viewer` for reads (GET/HEAD), `editor` for the rest.
 * Inspection rules hold hardware credentials, so their controller asks for `admin`.
 */
export const RequireRole = (role: Role) => SetMetadata(REQUIRED_ROLE, role);

export const ACCEPTS_X_AUTH_TOKEN = 'auth:accepts-x-auth-token';

/**
 * OpenStack clients (python-ironicclient, openstacksdk) send their token as `X-Auth-Token`:
 * on these routes it is read as a bearer token when there is no `Authorization` header.
 */
export const AcceptsXAuthToken = () => SetMetadata(ACCEPTS_X_AUTH_TOKEN, true);

export interface AuthenticatedRequest {
  principal?: Principal;
}

/** The authenticated caller, for use-cases that record the actor. */
export const CurrentPrincipal = createParamDecorator(
  (_: unknown, context: ExecutionContext): Principal => {
    const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
    if (!principal)
      throw new Error('CurrentPrincipal used on a route the auth guard does not cover');
    return principal;
  },
);
