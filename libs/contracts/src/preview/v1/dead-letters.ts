/** Since 1.9.0: by the ids the subject names, whether the policy exists or not. */
export interface GetDeadLettersRequest {
  /** `projects/{project}/locations/{location}` */
  parent: string;
  /** A policy id, which need not exist. */
  policy?: string;
}

export interface DeadLetterSummary {
  /** Since retention last let them go. */
  total: number;
  /** Most first. */
  byPolicy: DeadLetterPolicyCount[];
  /** At most 20, newest first. */
  samples: DeadLetterSample[];
}

export interface DeadLetterPolicyCount {
  /** As the subject named it. */
  policy: string;
  total: number;
  /** Most first. */
  byReason: DeadLetterReasonCount[];
  /**
   * When the last one was recorded.
   * @format date-time
   */
  lastTime: string;
}

export interface DeadLetterReasonCount {
  /**
   * unknown_policy, bad_address, invalid_event, bad_json, contract_mismatch, foreign_message_id,
   * unevaluable.
   */
  reason: string;
  count: number;
}

export interface DeadLetterSample {
  /** @format date-time */
  time: string;
  policy: string;
  reason: string;
  /** The `Dead-Letter-Reason` header. */
  detail: string;
}

export const DEAD_LETTER_SAMPLES = 20;
