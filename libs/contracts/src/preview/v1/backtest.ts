import type { Status } from '../../status';
import type { PreviewDeadLetterCount, PreviewFlow, PreviewReport } from './index';

/** Since 1.7.0: a replay over what TRAFFIC retains, apart from the live preview's counts. */
export interface BacktestRequest {
  /** The experiment, in any preview state. */
  name: string;
  /**
   * The stream's time, not the events'. Default: the oldest message retained.
   * @format date-time
   */
  startTime?: string;
  /**
   * Inclusive. Default: the newest message at the start.
   * @format date-time
   */
  endTime?: string;
}

export interface GetBacktestOperationRequest {
  /** `operations/backtest-{uuid}` */
  name: string;
}

/** AIP-151, as experiment.v1's Operation, with progress. */
export interface BacktestOperation {
  /** `operations/backtest-{uuid}` */
  name: string;
  done: boolean;
  metadata: BacktestOperationMetadata;
  response?: BacktestResult & { '@type': string };
  /** ABORTED when the evaluator running it stopped: a backtest never resumes. */
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
  /** Progress is written every second or so. */
  updateTime: string;
  endTime?: string;
  messagesReplayed: number;
  /** A traffic.v2alpha message holds several. */
  eventsReplayed: number;
}

export interface BacktestResult {
  /** One configuration, without `completeness` (see `window`), `disagreements` or `readiness`. */
  report: PreviewReport;
  /** The 20 with the most events. */
  topChangedFlows: PreviewFlow[];
  window: BacktestWindow;
}

export interface BacktestWindow {
  requestedStartTime?: string;
  requestedEndTime?: string;
  /** Absent when TRAFFIC held nothing at the start. */
  retainedStartTime?: string;
  /** Above 1: the stream's limits have removed older messages. */
  retainedStartSequence: number;
  /** Nothing published later is replayed. */
  lastSequence: number;
  /** Stream times. */
  replayedStartTime?: string;
  replayedEndTime?: string;
  messagesReplayed: number;
  eventsReplayed: number;
  /** What the live path would dead-letter, by reason. */
  skipped: PreviewDeadLetterCount[];
  skippedMessages: number;
  /** Part of the traffic asked for is gone. */
  startsBeforeRetention: boolean;
  summary: string;
}
