import { createInterface } from 'node:readline';
import { JetStreamClient, NatsConnection, NatsError } from 'nats';
import { trafficMessageId, trafficSubject } from '@rollout/contracts';
import { NatsNamespace } from '@rollout/platform/nats';
import { FORMATS, FormatName } from './formats';
import type { Input } from './inputs';
import { PolicyRoute, policyFor } from './policy-routes';
import { PublishSchedule } from './schedule';
import { eventId, trafficEvent } from './traffic-event';

export interface ImportOptions {
  format: FormatName;
  inputs: readonly Input[];
  project: string;
  location: string;
  /** The live policy of flows no route matches (or of every flow when there are no routes). */
  policy?: string;
  routes: readonly PolicyRoute[];
  defaultDirection: 'INGRESS' | 'EGRESS';
  /** Replay at this many times the original speed; undefined: as fast as possible. */
  speed?: number;
  ratePerSecond?: number;
  /** Stamp every event with the time it is published instead of its record's. */
  restamp: boolean;
  /** Read the inputs this many times; rounds after the first get ids of their own. */
  rounds: number;
  /** Mixed into every event id, so that importing the same records again is new traffic. */
  idSalt?: string;
  namespace?: string;
  /** Most publishes awaiting their acknowledgement. */
  maxInFlight?: number;
  /** Bad lines reported with their line number; the rest are only counted. */
  badLinesShown?: number;
  signal?: AbortSignal;
}

export interface BadLineReport {
  input: string;
  line: number;
  reason: string;
  message: string;
}

/** What an import did; `progress` is updated as it goes. */
export interface ImportSummary {
  lines: number;
  /** Events JetStream stored. */
  published: number;
  /** Events JetStream already held under the same Nats-Msg-Id (a re-import). */
  duplicates: number;
  skipped: Record<string, number>;
  bad: Record<string, number>;
  badLines: BadLineReport[];
  /** Bytes read from disk so far (compressed bytes for gzip). */
  bytesRead: number;
  elapsedMs: number;
}

/** An import that could not go on (NATS refused the events); the summary says how far it got. */
export class ImportFailed extends Error {
  constructor(
    message: string,
    readonly summary: ImportSummary,
  ) {
    super(message);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Shorter waits are let through: a timer per event would cost more than the precision is worth. */
const MIN_SLEEP_MS = 10;

export function emptySummary(): ImportSummary {
  return {
    lines: 0,
    published: 0,
    duplicates: 0,
    skipped: {},
    bad: {},
    badLines: [],
    bytesRead: 0,
    elapsedMs: 0,
  };
}

/**
 * Reads flow records from the inputs and publishes each as a traffic.v1 event to JetStream, on
 * the subject of its live policy, with a Nats-Msg-Id derived from the record. A bad line is
 * counted and reported, never fatal; a publish JetStream refuses stops the import (ImportFailed).
 */
export async function importFlows(
  connection: NatsConnection,
  options: ImportOptions,
  summary = emptySummary(),
): Promise<ImportSummary> {
  const started = Date.now();
  const ns = new NatsNamespace(options.namespace);
  const js = connection.jetstream();
  const schedule = new PublishSchedule({
    ratePerSecond: options.ratePerSecond,
    speed: options.speed,
  });
  const publisher = new Publisher(js, options.maxInFlight ?? 1024, summary);
  const shown = options.badLinesShown ?? 10;
  const subjects = new Map<string, string>();
  const subjectOf = (policy: string) => {
    let subject = subjects.get(policy);
    if (!subject)
      subjects.set(
        policy,
        (subject = ns.subject(trafficSubject(options.project, options.location, policy))),
      );
    return subject;
  };
  const count = (counts: Record<string, number>, reason: string) =>
    (counts[reason] = (counts[reason] ?? 0) + 1);

  try {
    const stopped = () => options.signal?.aborted === true || publisher.failure !== undefined;
    for (let round = 0; round < options.rounds && !stopped(); round++) {
      for (const input of options.inputs) {
        if (stopped()) break;
        const parser = FORMATS[options.format]({ name: input.name });
        const lines = createInterface({
          input: await input.open((bytes) => (summary.bytesRead += bytes)),
          crlfDelay: Infinity,
        });
        let lineNumber = 0;
        for await (const line of lines) {
          lineNumber++;
          if (stopped()) break;
          if (line.trim() === '') continue;
          summary.lines++;
          const result = parser.parse(line);
          if (result.kind === 'skip') {
            count(summary.skipped, result.reason);
            continue;
          }
          if (result.kind === 'bad' || result.kind === 'unreadable') {
            count(summary.bad, result.reason);
            // An input in another shape is said once, whatever else is shown.
            if (summary.badLines.length < shown || result.kind === 'unreadable')
              summary.badLines.push({
                input: input.name,
                line: lineNumber,
                reason: result.reason,
                message: result.message,
              });
            if (result.kind === 'unreadable') break;
            continue;
          }
          const policy = policyFor(result.flow.destIp, options.routes, options.policy);
          if (!policy) {
            count(summary.skipped, 'no_policy_for_destination');
            continue;
          }
          const delay = schedule.delayMs(Date.now(), result.flow.time?.getTime());
          if (delay >= MIN_SLEEP_MS) await sleep(delay);
          const subject = subjectOf(policy);
          const event = trafficEvent(result.flow, {
            id: eventId(subject, options.format, line, round, options.idSalt),
            defaultDirection: options.defaultDirection,
            now: new Date(),
            restamp: options.restamp,
          });
          await publisher.publish(
            subject,
            trafficMessageId(options.project, event.id),
            JSON.stringify(event),
          );
        }
        lines.close();
      }
    }
    await publisher.drained();
  } finally {
    summary.elapsedMs = Date.now() - started;
  }
  if (publisher.failure)
    throw new ImportFailed(describePublishError(publisher.failure, options), summary);
  return summary;
}

/** Keeps up to `maxInFlight` publishes awaiting acknowledgement; stops at the first refusal. */
class Publisher {
  private inFlight = 0;
  private wake?: () => void;
  failure?: unknown;

  constructor(
    private readonly js: JetStreamClient,
    private readonly maxInFlight: number,
    private readonly summary: ImportSummary,
  ) {}

  async publish(subject: string, msgID: string, data: string): Promise<void> {
    while (this.inFlight >= this.maxInFlight)
      await new Promise<void>((resolve) => (this.wake = resolve));
    this.inFlight++;
    this.js
      .publish(subject, data, { msgID })
      .then(
        (ack) => (ack.duplicate ? this.summary.duplicates++ : this.summary.published++),
        (error: unknown) => (this.failure ??= error),
      )
      .finally(() => {
        this.inFlight--;
        const wake = this.wake;
        this.wake = undefined;
        wake?.();
      });
  }

  async drained(): Promise<void> {
    while (this.inFlight > 0) await new Promise<void>((resolve) => (this.wake = resolve));
  }
}

function describePublishError(error: unknown, options: ImportOptions): string {
  const text = error instanceof Error ? error.message : String(error);
  if (error instanceof NatsError && (error.code === '503' || /no responders/i.test(text))) {
    return `no JetStream stream takes traffic.v1.${options.project}.${options.location}.*${options.namespace ? ` (namespace ${options.namespace})` : ''}: the bus provisioning step creates the TRAFFIC stream (npm start, the bus-provision Job, npm run bus:provision); has it run?`;
  }
  return `publishing failed: ${text}`;
}
