import type { Operation } from '@rollout/contracts';
import type { ClaimedWrite } from '@rollout/platform/event-store';
import { randomUUID } from 'node:crypto';

export function newOperation<T>(
  verb: string,
  target: string,
  response: T,
  now: Date,
): Operation<T> {
  const time = now.toISOString();
  return {
    name: `operations/${randomUUID()}`,
    done: true,
    metadata: {
      '@type': 'type.googleapis.com/policyrollout.experiment.v1.OperationMetadata',
      verb,
      target,
      createTime: time,
      endTime: time,
    },
    response: {
      '@type':
        verb === 'commit'
          ? 'type.googleapis.com/policyrollout.experiment.v1.FirewallPolicy'
          : verb === 'delete'
            ? 'type.googleapis.com/google.protobuf.Empty'
            : 'type.googleapis.com/policyrollout.experiment.v1.FirewallPolicyExperiment',
      ...response,
    },
  };
}

/** The name an answer is kept under when it is an Operation (see EventStoreOptions.answerName). */
export const operationName = (answer: unknown): string | undefined => {
  const name = (answer as { name?: unknown } | null)?.name;
  return typeof name === 'string' && name.startsWith('operations/') ? name : undefined;
};

/** Spliced from the JSON the projection binds in the same statement, so nothing is serialized twice. */
export function operationJson(
  operation: Operation,
  resource: string | undefined,
  analysis?: string,
): ClaimedWrite {
  const { response, ...envelope } = operation;
  if (resource === undefined || resource === '{}')
    return (p) => `${p(JSON.stringify(operation))}::jsonb`;
  const head = JSON.stringify(envelope).slice(0, -1);
  const type = JSON.stringify(response?.['@type']);
  const json = `${head},"response":{"@type":${type}${analysis ? `,"analysis":${analysis}` : ''},${resource.slice(1)}}`;
  return (p) => `${p(json)}::jsonb`;
}
