/** One dead-lettered message as a log summary shows it. */
export interface DeadLetterLogSample {
  subject: string;
  reason: string;
  detail: string;
}

/** What one log line says about an interval's dead letters. */
export interface DeadLetterLogSummary {
  /** Messages dead-lettered in the interval. */
  total: number;
  byReason: Record<string, number>;
  /** The interval's first few. */
  samples: DeadLetterLogSample[];
  /** The interval (RFC 3339). */
  since: string;
  until: string;
}

export interface DeadLetterLogOptions {
  /** The longest an interval runs before its summary is due. */
  intervalMs: number;
  maxSamples: number;
}

/**
 * Turns a flood of dead letters into one log line per interval: counts per reason and the first
 * few samples, and nothing at all for an interval without any. An interval starts with its first
 * dead letter; its summary is due once `intervalMs` have passed (`note` or `due` returns it).
 * `now` is the clock (milliseconds), injected so that tests need not wait.
 */
export class DeadLetterLogSummariser {
  private startedAt?: number;
  private total = 0;
  private byReason: Record<string, number> = {};
  private samples: DeadLetterLogSample[] = [];

  constructor(
    private readonly now: () => number,
    private readonly options: DeadLetterLogOptions = { intervalMs: 30_000, maxSamples: 3 },
  ) {}

  /** Counts one; returns the interval's summary when it is due. */
  note(sample: DeadLetterLogSample): DeadLetterLogSummary | undefined {
    this.startedAt ??= this.now();
    this.total++;
    this.byReason[sample.reason] = (this.byReason[sample.reason] ?? 0) + 1;
    if (this.samples.length < this.options.maxSamples) this.samples.push(sample);
    return this.due();
  }

  /** The interval's summary if it has run its length (for a timer: the tail of a flood). */
  due(): DeadLetterLogSummary | undefined {
    if (this.startedAt === undefined || this.now() - this.startedAt < this.options.intervalMs)
      return undefined;
    return this.flush();
  }

  /** The summary of what was noted so far, whatever the interval's age (at shutdown). */
  flush(): DeadLetterLogSummary | undefined {
    if (this.startedAt === undefined) return undefined;
    const summary: DeadLetterLogSummary = {
      total: this.total,
      byReason: this.byReason,
      samples: this.samples,
      since: new Date(this.startedAt).toISOString(),
      until: new Date(this.now()).toISOString(),
    };
    this.startedAt = undefined;
    this.total = 0;
    this.byReason = {};
    this.samples = [];
    return summary;
  }
}
