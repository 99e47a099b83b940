import { CommandContext, StatusError } from '@rollout/contracts';
import type { EventMetadata } from '@rollout/platform/event-store';

/** Who sent a command and its AIP-155 request id, as its events record them. */
export function commandMetadata(context: CommandContext): EventMetadata {
  const requestId = checkRequestId(context.requestId);
  return { actor: context.actor || 'unknown', ...(requestId ? { requestId } : {}) };
}

function checkRequestId(requestId: unknown): string | undefined {
  if (requestId === undefined || requestId === null || requestId === '') return undefined;
  if (typeof requestId !== 'string' || !/^[A-Za-z0-9._:-]{1,128}$/.test(requestId)) {
    throw StatusError.invalidArgument(
      'requestId must be 1-128 characters of [A-Za-z0-9._:-] (a UUID is best).',
      [{ field: 'requestId', description: 'invalid' }],
    );
  }
  return requestId;
}
