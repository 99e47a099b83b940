import type { ReadinessGate } from '../../experiment/v1/resources';

export interface PreviewReadiness {
  /** A commit of another etag is refused: the gates were judged on another version. */
  currentExperimentEtag: string;
  /** Current versions while ACTIVE, else the newest counted; absent without a preview. */
  experimentEtag?: string;
  livePolicyEtag?: string;
  /** True when there are no gates. */
  ready: boolean;
  gates: ReadinessGateStatus[];
}

export interface ReadinessGateStatus {
  gate: ReadinessGate;
  /** Its one field's name, e.g. minEvaluated. */
  kind: string;
  /** In the gate's unit: seconds, events, a share (0-1) or messages. */
  value: number;
  holds: boolean;
  /** One sentence with the value and the limit. */
  description: string;
}
