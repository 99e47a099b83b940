import type { ReadinessGate } from '../../experiment/v1/resources';

/** Which counts the gates were judged on, and each gate's verdict. */
export interface PreviewReadiness {
  /**
   * The experiment's etag as the evaluator holds it now. A commit of another etag is refused:
   * the gates were judged on another version (or the evaluator has not seen the latest yet).
   */
  currentExperimentEtag: string;
  /**
   * The configuration judged: while the preview is ACTIVE, the experiment's current version
   * against the current live policy; once it was stopped, the newest configuration counted.
   * Absent when the current version of the experiment has no preview (created or updated since).
   */
  experimentEtag?: string;
  livePolicyEtag?: string;
  /** Every gate holds (true when there are none). */
  ready: boolean;
  gates: ReadinessGateStatus[];
}

export interface ReadinessGateStatus {
  /** The gate as the experiment carries it. */
  gate: ReadinessGate;
  /** Its one field's name: minPreviewDuration, minEvaluated, maxAllowToDenyShare, noDenyToAllowFrom, maxCompletenessLoss. */
  kind: string;
  /** The current value, in the gate's unit: seconds, events, a share (0-1), events, messages. */
  value: number;
  holds: boolean;
  /** One sentence with the value and the limit. */
  description: string;
}
