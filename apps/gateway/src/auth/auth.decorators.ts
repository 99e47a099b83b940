import { ExecutionContext, SetMetadata, createParamDecorator } from '@nestjs/common';
import type { Principal, Role } from './principal';

export const REQUIRED_ROLE = 'auth:required-role';

/** Default: `viewer` for GET/HEAD, `editor` otherwise; inspection rules hold hardware credentials, so `admin`. */
export const RequireRole = (role: Role) => SetMetadata(REQUIRED_ROLE, role);

export const ACCEPTS_X_AUTH_TOKEN = 'auth:accepts-x-auth-token';

/** OpenStack clients send `X-Auth-Token`: read as the bearer token when there is no `Authorization` header. */
export const AcceptsXAuthToken = () => SetMetadata(ACCEPTS_X_AUTH_TOKEN, true);

export interface AuthenticatedRequest {
  principal?: Principal;
}

export const CurrentPrincipal = createParamDecorator(
  (_: unknown, context: ExecutionContext): Principal => {
    const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
    if (!principal)
      throw new Error('CurrentPrincipal used on a route the auth guard does not cover');
    return principal;
  },
);
