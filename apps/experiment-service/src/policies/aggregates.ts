import {
  ExperimentDomainEvent,
  ExperimentState,
  PolicyDomainEvent,
  PolicyState,
  evolveExperiment,
  evolvePolicy,
  initialExperiment,
  initialPolicy,
} from '@rollout/experiment-domain';
import type { StoredEvent } from '@rollout/event-store';

/** An EventTransaction, or the EventStore itself for a read outside a transaction. */
export interface StreamReader {
  readStream(streamId: string): Promise<StoredEvent[]>;
}

/** Rebuilds an aggregate from its stream (streams are short: tens of events). */
export async function loadPolicy(tx: StreamReader, name: string): Promise<PolicyState> {
  const events = await tx.readStream(name);
  return events.map(asDomain<PolicyDomainEvent>).reduce(evolvePolicy, initialPolicy(name));
}

export async function loadExperiment(tx: StreamReader, name: string): Promise<ExperimentState> {
  const events = await tx.readStream(name);
  return events.map(asDomain<ExperimentDomainEvent>).reduce(evolveExperiment, initialExperiment(name));
}

function asDomain<T>(event: StoredEvent): T {
  return { type: event.type, data: event.data } as T;
}
