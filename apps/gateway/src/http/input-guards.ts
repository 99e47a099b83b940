import {
  ArgumentMetadata,
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  ValidationPipe,
} from '@nestjs/common';
import { StatusError } from '@rollout/contracts';
import {
  FieldViolation,
  childPath,
  invalidFields,
  textProblem,
  violationsOf,
} from '@rollout/platform/errors';
import type { Observable } from 'rxjs';

/** A NUL or an unpaired UTF-16 surrogate, refused before any service sees it. */
export function unfitText(value: unknown, path = ''): FieldViolation | undefined {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem ? { field: path, description: problem } : undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const entries = Array.isArray(value) ? value.entries() : Object.entries(value);
  for (const [key, child] of entries) {
    const childAt = childPath(path, key);
    const keyProblem = typeof key === 'string' ? textProblem(key) : undefined;
    if (keyProblem) return { field: childAt, description: keyProblem };
    const found = unfitText(child, childAt);
    if (found) return found;
  }
  return undefined;
}

/** Inside the route (after its guards), so the route's own error format applies. */
@Injectable()
export class UnfitParametersInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<{ params?: unknown; query?: unknown }>();
    for (const parameters of [request.params, request.query]) {
      const unfit = unfitText(parameters);
      // A repeated query parameter (`?filter=a&filter=b`) is still named `filter`.
      if (unfit) throw invalidFields([{ ...unfit, field: unfit.field.replace(/\[\d+\]$/, '') }]);
    }
    return next.handle();
  }
}

/** Bodies a route reads as it is (YAML text, a JSON Patch array): only their absence is checked. */
const UNTYPED = new Set<unknown>([Object, Array, String, Number, Boolean]);

export const BODY_REQUIRED = 'The request needs a JSON object as its body.';

/**
 * Inside the route, so its own error format applies. Strict DTOs; a body must be an object where
 * a route takes one (Nest's pipe would turn an empty or `null` body into `{}`).
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
    const unfit = unfitText(value, metadata.data ?? '');
    if (unfit) throw invalidFields([unfit]);
    if (!metadata.data) {
      const typed = !!metadata.metatype && !UNTYPED.has(metadata.metatype);
      const notObject = typeof value !== 'object' || Array.isArray(value);
      if (value === undefined || value === null || (typed && notObject))
        throw StatusError.invalidArgument(BODY_REQUIRED);
    }
    return super.transform(value, metadata);
  }
}
