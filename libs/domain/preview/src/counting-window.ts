import type { BatchOutcome, DeadLetterEntry } from './evaluation';
import { addToFlow } from './flows';
import { type CohortBatch, ConfigurationBatch } from './view-tally';
import type { ActiveExperiment } from './views';

/** What one counting transaction writes. */
export type Counting = Pick<
  BatchOutcome,
  'configurations' | 'cohorts' | 'countedSeqs' | 'deadLetters'
>;

/** What a batch brings to a window. */
export type WindowedBatch = Counting & Pick<BatchOutcome, 'evaluatedEvents'>;

/**
 * Batches counted in one transaction (group commit). Tallies of disjoint messages add up, so a
 * window counts exactly what its batches would one by one, in rows that grow with the distinct
 * configurations, flows and transitions of the window rather than with its batches. Views are
 * replaced on every state change, so one window may see a configuration through several of them:
 * it is merged by its versions (`keys.configuration`), never counted as two.
 */
export class CountingWindow {
  private readonly configurations = new Map<string, ConfigurationBatch>();
  private readonly cohorts = new Map<string, CohortBatch>();
  private readonly deadLetters: DeadLetterEntry[] = [];
  private readonly seqs = new Set<number>();
  batches = 0;
  events = 0;

  /** Some sequence of these is in the window already: a redelivery that overtook its first delivery. */
  overlaps(countedSeqs: readonly number[]): boolean {
    return countedSeqs.some((seq) => this.seqs.has(seq));
  }

  add(batch: WindowedBatch): void {
    for (const seq of batch.countedSeqs) this.seqs.add(seq);
    this.batches++;
    this.events += batch.evaluatedEvents;
    this.deadLetters.push(...batch.deadLetters);
    for (const from of batch.configurations) this.configurationOf(from.target).addAll(from);
    for (const from of batch.cohorts) {
      const targets = from.targets.map((target) => this.configurationOf(target).target);
      const key = targets.map((target) => target.keys.configuration).join('\n');
      let into = this.cohorts.get(key);
      if (!into)
        this.cohorts.set(
          key,
          (into = { targets, outcomes: new Map(), masks: new Map(), flows: new Map() }),
        );
      for (const [outcomeKey, outcome] of from.outcomes) {
        const known = into.outcomes.get(outcomeKey);
        if (known) known.count += outcome.count;
        else into.outcomes.set(outcomeKey, { ...outcome });
      }
      for (const [mask, events] of from.masks)
        into.masks.set(mask, (into.masks.get(mask) ?? 0) + events);
      for (const [flowKey, flow] of from.flows) {
        const known = into.flows.get(flowKey);
        if (known) addToFlow(known, flow);
        else into.flows.set(flowKey, { ...flow, samples: [...flow.samples] });
      }
    }
  }

  get counting(): Counting {
    return {
      configurations: [...this.configurations.values()],
      cohorts: [...this.cohorts.values()],
      countedSeqs: [...this.seqs].sort((a, b) => a - b),
      deadLetters: this.deadLetters,
    };
  }

  private configurationOf(target: ActiveExperiment): ConfigurationBatch {
    let batch = this.configurations.get(target.keys.configuration);
    if (!batch)
      this.configurations.set(target.keys.configuration, (batch = new ConfigurationBatch(target)));
    return batch;
  }
}
