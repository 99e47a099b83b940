import { Inject, Injectable } from '@nestjs/common';
import type {
  Clock,
  FirewallPolicy,
  FirewallPolicyExperiment,
  HistoryEvent,
  Operation,
} from '@rollout/contracts';
import { CommandHandler, EventStore, StateCache } from '@rollout/platform/event-store';
import {
  ExperimentDomainEvent,
  ExperimentState,
  PolicyDomainEvent,
  PolicyState,
  historyDetails,
  historyType,
  shownRequestId,
} from '@rollout/domain/experiment';
import { CLOCK } from '@rollout/platform/service-kit';
import { DataSource } from 'typeorm';
import { ExperimentAggregateCommand, experimentAggregate } from './experiment-aggregate';
import { ExperimentsRepository } from './experiments.repository';
import { operationName } from './operation';
import { PoliciesRepository } from './policies.repository';
import { PolicyAggregateCommand, PolicyAnswer, policyAggregate } from './policy-aggregate';
import { EventRelays } from '../relays/event-relays.job';
import type { RecordedMetadata } from './command-metadata';

/** Counted as JSON length (about 2-4× that in memory): a few-rule experiment is under 1 KB, a 1,000-rule one can pass 100 KB. */
const EXPERIMENT_STATES_CACHED_JSON_LENGTH = 16 * 1024 * 1024;

/** Each event carries the resource after it, for publication; each command's answer is kept once, in the event store. */
@Injectable()
export class Aggregates {
  readonly store: EventStore;
  readonly policies: CommandHandler<
    PolicyState,
    PolicyAggregateCommand,
    PolicyDomainEvent,
    FirewallPolicy,
    PolicyAnswer
  >;
  /** Experiments' commands decide on the state this replica last saw (see CommandHandler.handle). */
  readonly experiments: CommandHandler<
    ExperimentState,
    ExperimentAggregateCommand,
    ExperimentDomainEvent,
    FirewallPolicyExperiment,
    Operation
  >;

  constructor(
    dataSource: DataSource,
    relays: EventRelays,
    policies: PoliciesRepository,
    experiments: ExperimentsRepository,
    @Inject(CLOCK) clock: Clock,
  ) {
    this.store = new EventStore(dataSource, {
      // The relays publish a command's events now rather than at their next poll.
      onCommit: () => relays.nudge(),
      answerName: operationName,
    });
    this.policies = new CommandHandler(this.store, policyAggregate(policies, clock));
    const cache = new StateCache<ExperimentState>(EXPERIMENT_STATES_CACHED_JSON_LENGTH);
    this.experiments = new CommandHandler(
      this.store,
      experimentAggregate(experiments, policies, clock, cache),
    );
  }

  /** A committed or deleted experiment keeps its history. */
  async history(name: string): Promise<{ events: HistoryEvent[] }> {
    const events = await this.store.readStream(name);
    return {
      events: events.map((e) => {
        const metadata = e.metadata as RecordedMetadata;
        const requestId = shownRequestId(metadata);
        return {
          type: historyType(e.type, e.data),
          time: e.createdAt.toISOString(),
          version: e.version,
          actor: metadata.actor,
          ...(requestId ? { requestId } : {}),
          ...(metadata.requestId ? { commandRequestId: metadata.requestId } : {}),
          ...historyDetails(e.data),
        };
      }),
    };
  }
}
