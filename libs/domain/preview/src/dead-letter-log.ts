export interface DeadLetterLogSample {
  subject: string;
  reason: string;
  detail: string;
}

export interface DeadLetterLogSummary {
  total: number;
  byReason: Record<string, number>;
  samples: DeadLetterLogSample[];
  /** RFC 3339. */
  since: string;
  until: string;
}

export interface DeadLetterLogOptions {
  intervalMs: number;
  maxSamples: number;
}

/** A flood becomes one log line per interval, which starts with its first dead letter. */
export class DeadLetterLogSummariser {
  private startedAt?: number;
  private total = 0;
  private byReason: Record<string, number> = {};
  private samples: DeadLetterLogSample[] = [];

  constructor(
    private readonly now: () => number,
    private readonly options: DeadLetterLogOptions = { intervalMs: 30_000, maxSamples: 3 },
  ) {}

  note(sample: DeadLetterLogSample): DeadLetterLogSummary | undefined {
    this.startedAt ??= this.now();
    this.total++;
    this.byReason[sample.reason] = (this.byReason[sample.reason] ?? 0) + 1;
    if (this.samples.length < this.options.maxSamples) this.samples.push(sample);
    return this.due();
  }

  /** For a timer: the tail of a flood. */
  due(): DeadLetterLogSummary | undefined {
    if (this.startedAt === undefined || this.now() - this.startedAt < this.options.intervalMs)
      return undefined;
    return this.flush();
  }

  /** At shutdown, whatever the interval's age. */
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
