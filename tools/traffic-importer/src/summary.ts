import type { PublishCounts } from './publisher';

export interface BadLineReport {
  input: string;
  line: number;
  reason: string;
  message: string;
}

export interface ImportSummary extends PublishCounts {
  lines: number;
  routed: Record<string, number>;
  dryRun: boolean;
  /** Lines of files whose saved positions say they were published before. */
  alreadyImported: number;
  skipped: Record<string, number>;
  bad: Record<string, number>;
  badLines: BadLineReport[];
  /** Compressed bytes for gzip. */
  bytesRead: number;
  elapsedMs: number;
}

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
