import { NatsConnection, NatsError } from 'nats';
import { trafficMessageId, trafficSubject } from '@rollout/contracts';
import { NatsNamespace } from '@rollout/platform/nats';
import { AckedPosition } from './acked-position';
import { FORMATS, FormatName } from './formats';
import type { Input } from './inputs';
import { readLines } from './line-reader';
import { PolicyRoute, policyFor } from './policy-routes';
import type { PositionStore } from './positions';
import { Publisher } from './publisher';
import { PublishSchedule } from './schedule';
import { ImportFailed, ImportSummary, emptySummary } from './summary';
import { eventId, trafficEvent } from './traffic-event';

export { ImportFailed, emptySummary } from './summary';
export type { BadLineReport, ImportSummary } from './summary';

export interface ImportOptions {
  format: FormatName;
  inputs: readonly Input[];
  project: string;
  location: string;
  policy?: string;
  routes: readonly PolicyRoute[];
  defaultDirection: 'INGRESS' | 'EGRESS';
  /** Undefined: as fast as possible. */
  speed?: number;
  ratePerSecond?: number;
  restamp: boolean;
  /** Rounds after the first get ids of their own. */
  rounds: number;
  /** Makes importing the same records again new traffic. */
  idSalt?: string;
  idKey: Uint8Array;
  namespace?: string;
  maxInFlight?: number;
  badLinesShown?: number;
  dryRun?: boolean;
  positions?: PositionStore;
  positionsEveryMs?: number;
  signal?: AbortSignal;
}

/** Shorter waits are let through: a timer per event would cost more than the precision is worth. */
const MIN_SLEEP_MS = 10;

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

const HEADER_LINES_KEPT = 64;

const count = (counts: Record<string, number>, reason: string) =>
  (counts[reason] = (counts[reason] ?? 0) + 1);

/**
 * A bad line is counted, never fatal; a refused publish stops the import (ImportFailed). A file's
 * position moves only past acknowledged lines. An interrupt stops reading at once, even from a quiet
 * pipe, waits for what is in flight, and saves.
 */
export async function importFlows(
  /** Unused in a dry run, which needs none. */
  connection: NatsConnection | undefined,
  options: ImportOptions,
  summary = emptySummary(),
): Promise<ImportSummary> {
  const started = Date.now();
  summary.dryRun = options.dryRun === true;
  const ns = new NatsNamespace(options.namespace);
  const schedule = new PublishSchedule({
    ratePerSecond: options.ratePerSecond,
    speed: options.speed,
  });
  if (!connection && !options.dryRun)
    throw new Error('an import that publishes needs a connection');
  const publisher =
    options.dryRun || !connection
      ? undefined
      : new Publisher(connection.jetstream(), options.maxInFlight ?? 1024, summary);
  // Positions are saved only of what the server acknowledged: never in a dry run.
  const saver =
    options.positions && !options.dryRun
      ? new PeriodicSave(options.positions, options.positionsEveryMs ?? 1000)
      : undefined;
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

  try {
    const stopped = () => options.signal?.aborted === true || publisher?.failure !== undefined;
    for (let round = 0; round < options.rounds && !stopped(); round++) {
      for (const input of options.inputs) {
        if (stopped()) break;
        const resume = options.positions
          ? await options.positions.resumeOf(input)
          : { from: { offset: 0, lines: 0 }, header: [] };
        summary.alreadyImported += resume.from.lines;
        const done = new AckedPosition(resume.from);
        const parser = FORMATS[options.format]({ name: input.name });
        // A resumed file's header lines are read again first: they say how to read the rest.
        for (const text of resume.header) parser.parse(text);
        const headers = resume.header.map((text) => ({ line: 0, text }));
        if (saver)
          options.positions?.track(input, resume, () => {
            const at = done.position;
            const header = headers.filter(({ line }) => line <= at.lines);
            return { ...at, header: header.map(({ text }) => text) };
          });
        const { offset, lines: linesBefore } = resume.from;
        const stream = await input.open((bytes) => (summary.bytesRead += bytes), offset);
        let lineNumber = linesBefore;
        for await (const { text: line, end } of readLines(stream, offset, options.signal)) {
          lineNumber++;
          const here = { offset: end, lines: lineNumber };
          if (stopped()) break;
          if (line.trim() === '') {
            done.passed(here);
            continue;
          }
          summary.lines++;
          const result = parser.parse(line);
          if (result.kind === 'skip') {
            count(summary.skipped, result.reason);
            if (result.reason === 'header') {
              headers.push({ line: lineNumber, text: line });
              if (headers.length > HEADER_LINES_KEPT) headers.shift();
            }
            done.passed(here);
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
            // Not read further, and its position not moved: importing it again says so again.
            if (result.kind === 'unreadable') break;
            done.passed(here);
            continue;
          }
          const policy = policyFor(result.flow.destIp, options.routes, options.policy);
          if (!policy) {
            count(summary.skipped, 'no_policy_for_destination');
            done.passed(here);
            continue;
          }
          count(summary.routed, policy);
          if (!publisher) {
            done.passed(here);
            continue;
          }
          const delay = schedule.delayMs(Date.now(), result.flow.time?.getTime());
          if (delay >= MIN_SLEEP_MS) await sleep(delay, options.signal);
          if (stopped()) break;
          const subject = subjectOf(policy);
          const event = trafficEvent(result.flow, {
            id: eventId(options.idKey, subject, options.format, line, round, options.idSalt),
            defaultDirection: options.defaultDirection,
            now: new Date(),
            restamp: options.restamp,
          });
          await publisher.publish(
            subject,
            trafficMessageId(options.project, event.id),
            JSON.stringify(event),
            done.sent(here),
          );
        }
        stream.destroy();
      }
    }
    await publisher?.drained();
  } finally {
    summary.elapsedMs = Date.now() - started;
    await saver?.stop();
  }
  if (publisher?.failure)
    throw new ImportFailed(describePublishError(publisher.failure, options), summary);
  return summary;
}

class PeriodicSave {
  private saving: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  private failure?: unknown;

  constructor(
    private readonly positions: PositionStore,
    everyMs: number,
  ) {
    this.timer = setInterval(() => void this.save(), everyMs);
  }

  private save(): Promise<void> {
    this.saving = this.saving
      .then(() => this.positions.save())
      .catch((error: unknown) => void (this.failure ??= error));
    return this.saving;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.save();
    if (this.failure) throw this.failure;
  }
}

function describePublishError(error: unknown, options: ImportOptions): string {
  const text = error instanceof Error ? error.message : String(error);
  if (error instanceof NatsError && (error.code === '503' || /no responders/i.test(text))) {
    return `no JetStream stream takes traffic.v1.${options.project}.${options.location}.*${options.namespace ? ` (namespace ${options.namespace})` : ''}: the bus provisioning step creates the TRAFFIC stream (npm start, the bus-provision Job, npm run bus:provision); has it run?`;
  }
  return `publishing failed: ${text}`;
}
