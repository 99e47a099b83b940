import {
  ExperimentEvent,
  FirewallPolicy,
  FirewallPolicyExperiment,
  PolicyEvent,
  experimentEventSubject,
  experimentStateKey,
  parseExperimentName,
  parsePolicyName,
  policyEventSubject,
  policyStateKey,
} from '@rollout/contracts';
import type { StoredEvent } from '@rollout/platform/event-store';

function idsOf(event: StoredEvent): [string, string, string, string | undefined] {
  const experiment = parseExperimentName(event.streamId);
  const name = experiment ?? parsePolicyName(event.streamId);
  // Their commands require the name: another stream is a bug, not a message to publish.
  if (!name) throw new Error(`event stream "${event.streamId}" is not a policy or experiment name`);
  return [name.project, name.location, name.policy, experiment?.experiment];
}

/** The subject an event is published on (see experiment.v1's domain events). */
export function eventSubject(event: StoredEvent): string {
  const [project, location, policy, experiment] = idsOf(event);
  return experiment === undefined
    ? policyEventSubject(project, location, policy)
    : experimentEventSubject(project, location, policy, experiment);
}

export function stateKey(event: StoredEvent): string {
  const [project, location, policy, experiment] = idsOf(event);
  return experiment === undefined
    ? policyStateKey(project, location, policy)
    : experimentStateKey(project, location, policy, experiment);
}

/** Events after which the aggregate is no longer current state: its key is deleted. */
export const isEnd = (event: StoredEvent) =>
  ['PolicyDeleted', 'ExperimentDeleted', 'ExperimentCommitted'].includes(event.type);

export function publishedEvent(event: StoredEvent): PolicyEvent | ExperimentEvent {
  return {
    id: event.eventId,
    type: event.type as PolicyEvent['type'],
    subject: event.streamId,
    version: event.version,
    time: event.createdAt.toISOString(),
    actor: event.metadata.actor,
    ...(event.metadata.requestId ? { requestId: event.metadata.requestId } : {}),
    ...(event.metadata.state
      ? { state: event.metadata.state as FirewallPolicy & FirewallPolicyExperiment }
      : {}),
  };
}
