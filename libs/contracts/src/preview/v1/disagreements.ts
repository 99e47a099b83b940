export interface PreviewDisagreement {
  /** The other experiment's resource name. */
  experiment: string;
  experimentEtag: string;
  /** While both were ACTIVE. */
  events: number;
  /** The 20 with the most such events. */
  topFlows: PreviewDisagreementFlow[];
  /** Past the evaluator's flow bound for the experiments ACTIVE together (since 1.13.0). */
  eventsOutsideFlows: number;
}

/** Without its source port. */
export interface PreviewDisagreementFlow {
  direction: 'INGRESS' | 'EGRESS';
  srcIp: string;
  destIp: string;
  protocol: string;
  destPort?: number;
  /** This configuration's experiment's; the other's is the opposite. */
  action: 'allow' | 'deny';
  otherAction: 'allow' | 'deny';
  count: number;
}

/** 1.8.0 to 1.12.0; since 1.13.0 these flows are kept with the changed ones. */
export const PREVIEW_DISAGREEMENT_FLOWS = 10_000;
