import type { Operation } from '@rollout/contracts';
import { randomUUID } from 'node:crypto';

/** An experiment mutation's answer: an Operation, done at once (see OperationsRepository). */
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
