import {
  ArgumentMetadata,
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  ValidationPipe,
} from '@nestjs/common';
import { StatusError } from '@rollout/contracts';
import { FIELD_WORDING, childPath, invalidFields, violationsOf } from '@rollout/platform/errors';
import type { Observable } from 'rxjs';

/**
 * The first path in a JSON value holding a NUL character, in a string or a key. Postgres
 * refuses U+0000 in text and jsonb, so it is refused here, before any service sees it.
 */
export function nulPath(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  const entries = Array.isArray(value) ? value.entries() : Object.entries(value);
  for (const [key, child] of entries) {
    const childAt = childPath(path, key);
    if (typeof key === 'string' && key.includes('\u0000')) return childAt;
    const found = nulPath(child, childAt);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * A NUL in a path or query parameter is refused on every route, whether it reads the parameter
 * or not; inside the route (after its guards), so the route's own error format applies.
 */
@Injectable()
export class NulParametersInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<{ params?: unknown; query?: unknown }>();
    for (const parameters of [request.params, request.query]) {
      const nul = nulPath(parameters);
      // A repeated query parameter (`?filter=a&filter=b`) is still named `filter`.
      if (nul !== undefined)
        throw invalidFields([
          { field: nul.replace(/\[\d+\]$/, ''), description: FIELD_WORDING.nul },
        ]);
    }
    return next.handle();
  }
}

/** Bodies a route reads as it is (YAML text, a JSON Patch array): only their absence is checked. */
const UNTYPED = new Set<unknown>([Object, Array, String, Number, Boolean]);

export const BODY_REQUIRED = 'The request needs a JSON object as its body.';

/**
 * Validation of every route's body, path and query, inside the route (so a route's own error
 * format applies): no NUL character in a body, strict DTOs (no unknown field), errors in the
 * project's wording (`@rollout/platform/errors`), and a body that is there and is an object
 * wherever a route takes one (Nest's pipe would turn an empty or `null` body into `{}`).
 */
@Injectable()
export class GatewayValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      exceptionFactory: (errors) => invalidFields(violationsOf(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type !== 'body') return super.transform(value, metadata);
    const nul = nulPath(value, metadata.data ?? '');
    if (nul !== undefined) throw invalidFields([{ field: nul, description: FIELD_WORDING.nul }]);
    if (!metadata.data) {
      const typed = !!metadata.metatype && !UNTYPED.has(metadata.metatype);
      const notObject = typeof value !== 'object' || Array.isArray(value);
      if (value === undefined || value === null || (typed && notObject))
        throw StatusError.invalidArgument(BODY_REQUIRED);
    }
    return super.transform(value, metadata);
  }
}
