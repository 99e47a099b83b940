import { Injectable } from '@nestjs/common';
import type { HistoryEvent } from '@rollout/contracts';
import { CommandHandler, EventStore, StateCache } from '@rollout/platform/event-store';
import {
  ExperimentDomainEvent,
  ExperimentState,
  PolicyDomainEvent,
  PolicyState,
  evolveExperiment,
  evolvePolicy,
  experimentView,
  initialExperiment,
  initialPolicy,
  policyView,
  shownRequestId,
} from '@rollout/domain/experiment';
import { DataSource } from 'typeorm';
import { EventRelays } from '../relays/event-relays';
import type { RecordedMetadata } from './command-metadata';

/**
 * How much of the experiments' last known states to keep, counted as the length of their JSON
 * (a state takes about two to four times that in memory). An experiment of a few rules is
 * under 1 KB, so thousands fit; one of 1,000 rules can pass 100 KB.
 */
const EXPERIMENT_STATES_CACHED_JSON_LENGTH = 16 * 1024 * 1024;

/**
 * The event-sourced aggregates, live policies and experiments: their command handlers on the
 * event store, and their history. Each event carries the resource after it, for publication.
 */
@Injectable()
export class Aggregates {
  readonly store: EventStore;
  readonly policies: CommandHandler<PolicyState, PolicyDomainEvent>;
  /** Experiments' commands decide on the state this replica last saw (see CommandHandler.handle). */
  readonly experiments: CommandHandler<ExperimentState, ExperimentDomainEvent>;

  constructor(dataSource: DataSource, relays: EventRelays) {
    // The relays publish a command's events now rather than at their next poll.
    this.store = new EventStore(dataSource, { onCommit: () => relays.nudge() });
    this.policies = new CommandHandler(this.store, {
      initialState: initialPolicy,
      evolve: evolvePolicy,
      published: (state) => (state.exists ? policyView(state) : undefined),
    });
    this.experiments = new CommandHandler(this.store, {
      initialState: initialExperiment,
      evolve: evolveExperiment,
      published: (state) => (state.exists ? experimentView(state) : undefined),
      cache: new StateCache(EXPERIMENT_STATES_CACHED_JSON_LENGTH),
    });
  }

  /**
   * An aggregate's events, as its history shows them. The stream outlives the resource: a
   * committed or deleted experiment keeps its history.
   */
  async history(name: string): Promise<{ events: HistoryEvent[] }> {
    const events = await this.store.readStream(name);
    return {
      events: events.map((e) => {
        const metadata = e.metadata as RecordedMetadata;
        const requestId = shownRequestId(metadata);
        return {
          type: e.type,
          time: e.createdAt.toISOString(),
          version: e.version,
          actor: metadata.actor,
          ...(requestId ? { requestId } : {}),
          ...(metadata.requestId ? { commandRequestId: metadata.requestId } : {}),
          ...reasonOf(e.data),
        };
      }),
    };
  }
}

/** The reason a command gave, recorded in its event's data (PreviewStarted, PreviewStopped). */
const reasonOf = (data: unknown): { reason?: string } => {
  const reason = (data as { reason?: unknown } | null)?.reason;
  return typeof reason === 'string' ? { reason } : {};
};
