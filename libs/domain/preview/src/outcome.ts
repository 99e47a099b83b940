import type { PreviewVerdict } from '@rollout/contracts';
import type { ParsedConnection } from '@rollout/domain/firewall';
import type { PolicyView } from './views';
import { IMPLIED_PRIORITY, type TransitionTally } from './totals';

/** The live verdict then one per `view.active`, interned per view so tallies key on identity. */
export class Outcome {
  /** Bit i: `view.active[i]` denies. */
  readonly denyMask: number;
  /** Some experiment decides otherwise than live. */
  readonly changes: boolean;
  /** Two experiments decide differently. */
  readonly split: boolean;
  readonly encoded = new Map<string, string>();

  constructor(
    readonly id: number,
    readonly live: PreviewVerdict,
    readonly experiments: readonly PreviewVerdict[],
  ) {
    let mask = 0;
    let changes = false;
    for (let i = 0; i < experiments.length; i++) {
      if (experiments[i].action === 'deny' && i < MASK_BITS) mask |= 1 << i;
      if (experiments[i].action !== live.action) changes = true;
    }
    this.denyMask = mask;
    this.changes = changes;
    this.split = experiments.some((e) => e.action !== experiments[0].action);
  }
}

/** AIP-236 allows 10 experiments per policy: 31 bits are plenty. */
export const MASK_BITS = 31;

interface OutcomeNode {
  next?: Map<PreviewVerdict, OutcomeNode>;
  outcome?: Outcome;
}

/** Then it starts over; old outcomes stay valid. */
const MAX_OUTCOMES = 100_000;

/** A reused scratch array and a trie of verdict objects: no allocation for an outcome seen before. */
export class ViewEvaluator {
  private root: OutcomeNode = {};
  private outcomes = 0;
  private readonly scratch: PreviewVerdict[];

  constructor(readonly view: PolicyView) {
    this.scratch = new Array<PreviewVerdict>(view.active.length);
  }

  evaluate(connection: ParsedConnection): Outcome {
    const { active, live } = this.view;
    const liveVerdict = live.evaluateParsed(connection);
    let node = this.child(this.root, liveVerdict);
    for (let i = 0; i < active.length; i++) {
      const verdict = active[i].policy.evaluateParsed(connection);
      this.scratch[i] = verdict;
      node = this.child(node, verdict);
    }
    if (!node.outcome) {
      if (this.outcomes >= MAX_OUTCOMES) {
        this.root = {};
        this.outcomes = 0;
        return this.evaluate(connection);
      }
      node.outcome = new Outcome(this.outcomes++, liveVerdict, [...this.scratch]);
    }
    return node.outcome;
  }

  private child(node: OutcomeNode, verdict: PreviewVerdict): OutcomeNode {
    node.next ??= new Map();
    let next = node.next.get(verdict);
    if (!next) node.next.set(verdict, (next = {}));
    return next;
  }
}

const evaluators = new WeakMap<PolicyView, ViewEvaluator>();

/** Views are replaced, never mutated, so one evaluator per view lives as long as it. */
export function evaluatorOf(view: PolicyView): ViewEvaluator {
  let evaluator = evaluators.get(view);
  if (!evaluator) evaluators.set(view, (evaluator = new ViewEvaluator(view)));
  return evaluator;
}

/** IMPLIED_PRIORITY stands for an implied rule. */
export interface StoredOutcome {
  readonly key: string;
  readonly livePriority: number;
  readonly liveAction: 'allow' | 'deny';
  readonly experimentPriorities: readonly number[];
  /** `a` or `d` per configuration. */
  readonly experimentActions: string;
  count: number;
}

const storedOutcomes = new WeakMap<Outcome, Omit<StoredOutcome, 'count'>>();

export function storedOutcome(outcome: Outcome): Omit<StoredOutcome, 'count'> {
  let stored = storedOutcomes.get(outcome);
  if (!stored) {
    const priority = (v: PreviewVerdict) => v.rulePriority ?? IMPLIED_PRIORITY;
    const livePriority = priority(outcome.live);
    const experimentPriorities = outcome.experiments.map(priority);
    const experimentActions = outcome.experiments.map((v) => v.action[0]).join('');
    stored = {
      key: `${livePriority}${outcome.live.action[0]}|${experimentPriorities.join(',')}|${experimentActions}`,
      livePriority,
      liveAction: outcome.live.action,
      experimentPriorities,
      experimentActions,
    };
    storedOutcomes.set(outcome, stored);
  }
  return stored;
}

export function memberTransitions(
  outcomes: Iterable<StoredOutcome>,
  position: number,
): TransitionTally[] {
  const merged = new Map<string, TransitionTally>();
  for (const outcome of outcomes) {
    const experimentPriority = outcome.experimentPriorities[position];
    const experimentAction = outcome.experimentActions[position] === 'd' ? 'deny' : 'allow';
    const key = `${outcome.livePriority}${outcome.liveAction}|${experimentPriority}${experimentAction}`;
    const known = merged.get(key);
    if (known) known.count += outcome.count;
    else
      merged.set(key, {
        livePriority: outcome.livePriority,
        liveAction: outcome.liveAction,
        experimentPriority,
        experimentAction,
        count: outcome.count,
      });
  }
  return [...merged.values()];
}
