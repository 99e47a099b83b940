import { Injectable } from '@nestjs/common';
import { BlazarVerdict, ENFORCEMENT_SUBJECTS as S, StatusError } from '@rollout/contracts';
import { BackendClient } from '../http/backend-client';

export const BLAZAR_HOOKS = {
  'check-create': S.blazarCheckCreate,
  'check-update': S.blazarCheckUpdate,
  'on-end': S.blazarOnEnd,
} as const;
export type BlazarHook = keyof typeof BLAZAR_HOOKS;

@Injectable()
export class BlazarClient {
  constructor(private readonly backend: BackendClient) {}

  decide(hook: BlazarHook, payload: unknown, traceId?: string): Promise<BlazarVerdict> {
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      throw StatusError.invalidArgument('The body must be a JSON object {context, lease}.', [
        { field: 'body', description: 'must be an object' },
      ]);
    }
    return this.backend.call<BlazarVerdict>(BLAZAR_HOOKS[hook], payload, traceId);
  }
}
