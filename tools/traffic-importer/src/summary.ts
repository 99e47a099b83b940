import type { PublishCounts } from './publisher';

export interface BadLineReport {
  input: string;
  line: number;
  reason: string;
  message: string;
}

/** What an import did; `progress` is updated as it goes. */
export interface ImportSummary extends PublishCounts {
  lines: number;
  /** Events per live policy: sent to it, or that would be in a dry run. */
  routed: Record<string, number>;
  dryRun: boolean;
  /** Lines of files not read again: their saved positions say they were published before. */
  alreadyImported: number;
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

export function emptySummary(): ImportSummary {
  return {
    lines: 0,
    published: 0,
    duplicates: 0,
    routed: {},
    dryRun: false,
    alreadyImported: 0,
    skipped: {},
    bad: {},
    badLines: [],
    bytesRead: 0,
    elapsedMs: 0,
  };
}
