import type {
  PreviewCompleteness,
  PreviewDeadLetterCount,
  PreviewEvaluatorLag,
} from '@rollout/contracts';

export interface CompletenessFacts {
  deadLettered: readonly PreviewDeadLetterCount[];
  redeliveredEvents: number;
  trafficDroppedMessages: number;
  trafficDropUndetermined: number;
  /** Undefined when the evaluator's backlog could not be read. */
  lag?: PreviewEvaluatorLag;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Redeliveries are reported, never a loss: each message is counted once. */
export function completenessOf(facts: CompletenessFacts): PreviewCompleteness {
  const deadLettered = [...facts.deadLettered].sort(
    (a, b) => b.messages - a.messages || a.reason.localeCompare(b.reason),
  );
  const deadLetteredMessages = deadLettered.reduce((sum, d) => sum + d.messages, 0);
  const problems: string[] = [];
  if (deadLetteredMessages > 0) {
    problems.push(
      `${plural(deadLetteredMessages, 'message')} of this policy's traffic ${deadLetteredMessages === 1 ? 'was' : 'were'} dead-lettered (${deadLettered.map((d) => `${d.reason} ${d.messages}`).join(', ')}) and ${deadLetteredMessages === 1 ? 'is' : 'are'} not counted`,
    );
  }
  if (facts.trafficDroppedMessages > 0) {
    problems.push(
      `TRAFFIC dropped ${plural(facts.trafficDroppedMessages, 'message')} (of every policy) before the evaluator read them`,
    );
  }
  if (facts.trafficDropUndetermined > 0) {
    problems.push(
      `TRAFFIC removed ${plural(facts.trafficDropUndetermined, 'more message')} that may have been dropped unread: loss unknown`,
    );
  }
  if (!facts.lag) problems.push("the evaluator's backlog could not be read: counts may still grow");
  else if (facts.lag.pendingMessages > 0) {
    problems.push(
      `the evaluator has ${plural(facts.lag.pendingMessages, 'message')} left to read${facts.lag.oldestPendingTime ? ` (oldest published ${facts.lag.oldestPendingTime})` : ''}`,
    );
  }
  const complete = problems.length === 0;
  const redelivered =
    facts.redeliveredEvents > 0
      ? ` ${plural(facts.redeliveredEvents, 'event')} ${facts.redeliveredEvents === 1 ? 'needed a redelivery and was' : 'needed a redelivery and were'} counted once.`
      : '';
  return {
    complete,
    summary: complete
      ? `Complete: every message of this policy's traffic is counted, none lost.${redelivered}`
      : `Incomplete: ${problems.join('; ')}.${redelivered}`,
    deadLettered,
    deadLetteredMessages,
    redeliveredEvents: facts.redeliveredEvents,
    trafficDroppedMessages: facts.trafficDroppedMessages,
    trafficDropUndetermined: facts.trafficDropUndetermined,
    ...(facts.lag ? { lag: facts.lag } : {}),
  };
}
