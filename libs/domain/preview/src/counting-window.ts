import type { BatchOutcome, DeadLetterEntry } from './evaluation';
import { addToFlow } from './flows';
import { type CohortBatch, ConfigurationBatch } from './view-tally';
import type { ActiveExperiment } from './views';

export type Counting = Pick<
  BatchOutcome,
  'configurations' | 'cohorts' | 'countedSeqs' | 'deadLetters'
>;

export type WindowedBatch = Counting & Pick<BatchOutcome, 'evaluatedEvents'>;

/**
 * Tallies of disjoint messages add up, so a window counts exactly what its batches would. A window
 * may see a configuration through several views: it is merged by `keys.configuration`.
 */
export class CountingWindow {
  private readonly configurations = new Map<string, ConfigurationBatch>();
  private readonly cohorts = new Map<string, CohortBatch>();
  private readonly deadLetters: DeadLetterEntry[] = [];
  private readonly seqs = new Set<number>();
  batches = 0;
  events = 0;

  /** A redelivery that overtook its first delivery. */
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
