import { CommandContext, StatusError } from '@rollout/contracts';
import type { EventMetadata } from '@rollout/platform/event-store';

export interface RecordedMetadata extends EventMetadata {
  traceId?: string;
}

/** A command that names no actor is refused: every event says who caused it (the actor gate checked the name). */
export function commandMetadata(context: CommandContext): RecordedMetadata {
  const actor = checkActor((context as { actor?: unknown }).actor);
  const requestId = checkRequestId('requestId', context.requestId);
  const traceId = checkRequestId('traceId', context.traceId);
  return {
    actor,
    ...(requestId ? { requestId } : {}),
    ...(traceId ? { traceId } : {}),
  };
}

function checkActor(actor: unknown): string {
  if (typeof actor !== 'string' || actor === '' || actor.length > 255)
    throw StatusError.invalidArgument('actor is required.', [
      { field: 'actor', description: 'required' },
    ]);
  return actor;
}

function checkRequestId(field: string, requestId: unknown): string | undefined {
  if (requestId === undefined || requestId === null || requestId === '') return undefined;
  if (typeof requestId !== 'string' || !/^[A-Za-z0-9._:-]{1,128}$/.test(requestId)) {
    throw StatusError.invalidArgument(
      `${field} must be 1-128 characters of [A-Za-z0-9._:-] (a UUID is best).`,
      [{ field, description: 'invalid' }],
    );
  }
  return requestId;
}
