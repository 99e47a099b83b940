import type { Status } from '../../status';
import type { PreviewDeadLetterCount, PreviewFlow, PreviewReport } from './index';

/**
 * Backtests (since 1.7.0): an experiment's policy as it stands now, against the live policy as
 * it stands now, replayed over the traffic of its live policy that TRAFFIC still retains. The
 * result has the report's shape and is kept apart from the live preview's counts; what the
 * stream no longer holds is not in it, and `window` says so.
 */

/** Start a backtest (`preview.v1.backtest`); the answer is its operation, not yet done. */
export interface BacktestRequest {
  /** The experiment, in any preview state: `projects/{p}/locations/{l}/firewallPolicies/{f}/experiments/{e}` */
  name: string;
  /**
   * Replay the messages TRAFFIC stored at or after this time (RFC 3339, the stream's time, not
   * the events'). Default: the oldest message TRAFFIC still retains.
   * @format date-time
   */
  startTime?: string;
  /**
   * ... and at or before this time. Default: the newest message when the backtest starts.
   * @format date-time
   */
  endTime?: string;
}

/** `preview.v1.getOperation`: a backtest's operation, asked again. */
export interface GetBacktestOperationRequest {
  /** `operations/backtest-{uuid}` */
  name: string;
}

/** A backtest as an operation (AIP-151): the same fields as experiment.v1's Operation, with progress. */
export interface BacktestOperation {
  /** `operations/backtest-{uuid}` */
  name: string;
  done: boolean;
  metadata: BacktestOperationMetadata;
  /** Once done without error: the result (`@type` …preview.v1.BacktestResult). */
  response?: BacktestResult & { '@type': string };
  /** Once failed: why (e.g. ABORTED when the evaluator running it stopped; a backtest never resumes). */
  error?: Status;
}

export interface BacktestOperationMetadata {
  /** `type.googleapis.com/policyrollout.preview.v1.BacktestMetadata` */
  '@type': string;
  /** Always `backtest`. */
  verb: string;
  /** The experiment. */
  target: string;
  createTime: string;
  /** When the progress below was last written (every second or so while it runs). */
  updateTime: string;
  endTime?: string;
  /** TRAFFIC messages of the policy read so far. */
  messagesReplayed: number;
  /** Traffic events evaluated so far (a traffic.v2alpha message holds several). */
  eventsReplayed: number;
}

/** What a backtest found, and what bounds it. */
export interface BacktestResult {
  /**
   * The report of the one configuration replayed (the experiment's etag and the live policy's
   * at the start), in previewReport's shape; `configurations` is empty when no event was
   * replayed. Not in it: `completeness` (about the live evaluator; see `window`),
   * `disagreements` (the experiment is replayed alone), `readiness` and `reportEtag`.
   */
  report: PreviewReport;
  /** The PREVIEW_REPORT_TOP changed flows with the most events, most first. */
  topChangedFlows: PreviewFlow[];
  window: BacktestWindow;
}

/** The window replayed, and what TRAFFIC still held of the one asked for. */
export interface BacktestWindow {
  /** As asked (absent: from the oldest message retained, up to the newest at the start). */
  requestedStartTime?: string;
  requestedEndTime?: string;
  /** When TRAFFIC stored its oldest retained message, at the start; absent when it held none. */
  retainedStartTime?: string;
  /** That message's stream sequence (above 1: the stream's limits have removed older ones). */
  retainedStartSequence: number;
  /** The stream's last sequence at the start: nothing published later is replayed. */
  lastSequence: number;
  /** Stream times of the first and last message replayed; absent when none was. */
  replayedStartTime?: string;
  replayedEndTime?: string;
  messagesReplayed: number;
  eventsReplayed: number;
  /** Messages that could not be decoded or evaluated (the live path would dead-letter them), by reason. */
  skipped: PreviewDeadLetterCount[];
  skippedMessages: number;
  /**
   * The asked window starts before the oldest message TRAFFIC retains (or, with no start asked,
   * the stream has removed older messages): part of the traffic asked for is gone.
   */
  startsBeforeRetention: boolean;
  /** All of the above in a sentence or three. */
  summary: string;
}
