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
import type { NewEvent } from '@rollout/event-store';

/** An EventTransaction, or the EventStore itself for a read outside a transaction. */
export interface StreamReader {
  replayStream(streamId: string): Promise<NewEvent[]>;
}

/** Rebuilds an aggregate from its stream (streams are short: tens of events). */
export async function loadPolicy(tx: StreamReader, name: string): Promise<PolicyState> {
  const events = (await tx.replayStream(name)) as PolicyDomainEvent[];
  return events.reduce(evolvePolicy, initialPolicy(name));
}

export async function loadExperiment(tx: StreamReader, name: string): Promise<ExperimentState> {
  const events = (await tx.replayStream(name)) as ExperimentDomainEvent[];
  return events.reduce(evolveExperiment, initialExperiment(name));
}
