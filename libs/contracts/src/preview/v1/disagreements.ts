/** Another ACTIVE experiment that decides some of this configuration's events differently. */
export interface PreviewDisagreement {
  /** The other experiment's resource name. */
  experiment: string;
  experimentEtag: string;
  /** Events (while both were ACTIVE) the two experiments decide differently. */
  events: number;
  /** The PREVIEW_REPORT_TOP flows with the most such events (ties by flow). */
  topFlows: PreviewDisagreementFlow[];
  /**
   * Of `events`, those in flows not kept: past the evaluator's EVALUATOR_MAX_FLOWS distinct flows
   * of the experiments ACTIVE together (since 1.13.0; PREVIEW_DISAGREEMENT_FLOWS before).
   */
  eventsOutsideFlows: number;
}

/** A connection, without its source port, the two experiments decide differently. */
export interface PreviewDisagreementFlow {
  direction: 'INGRESS' | 'EGRESS';
  srcIp: string;
  destIp: string;
  protocol: string;
  /** Absent for connections without ports. */
  destPort?: number;
  /** This configuration's experiment's action; the other experiment's is the opposite. */
  action: 'allow' | 'deny';
  otherAction: 'allow' | 'deny';
  count: number;
}

/**
 * Distinct flows (with the pattern of verdicts of the experiments ACTIVE together) kept per set
 * of experiments ACTIVE together on a live policy version, for `disagreements` (1.8.0 to 1.12.0;
 * since 1.13.0 these flows are kept with the changed flows, up to the evaluator's EVALUATOR_MAX_FLOWS).
 */
export const PREVIEW_DISAGREEMENT_FLOWS = 10_000;
