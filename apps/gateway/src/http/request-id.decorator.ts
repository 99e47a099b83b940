import { ExecutionContext, createParamDecorator } from '@nestjs/common';

/** The id pino-http gave this request (from `x-request-id` or new), to pass downstream. */
export const RequestId = createParamDecorator(
  (_: unknown, context: ExecutionContext): string | undefined => {
    const id = context.switchToHttp().getRequest<{ id?: unknown }>().id;
    return id === undefined ? undefined : String(id);
  },
);
