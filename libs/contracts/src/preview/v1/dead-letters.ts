/**
 * Dead letters (since 1.9.0): the TRAFFIC messages the evaluator refused (and published to
 * `deadletter.v1.traffic`), recorded by the project, location and firewall policy id their
 * subject names, whether that policy exists or not (a typo in a producer's project or policy is
 * `unknown_policy`). A subject that names no project (`bad_subject`, `unknown_major`) is in the
 * evaluator's metrics only.
 */

/** `preview.v1.deadLetters`: what the evaluator dead-lettered for one project and location. */
export interface GetDeadLettersRequest {
  /** `projects/{project}/locations/{location}` */
  parent: string;
  /** Only this firewall policy id (the subject's last token; it need not exist). */
  policy?: string;
}

export interface DeadLetterSummary {
  /** Messages dead-lettered (of `policy` when asked), since retention last let them go. */
  total: number;
  /** Per policy id, the most dead-lettered first. */
  byPolicy: DeadLetterPolicyCount[];
  /** A few recent ones (at most DEAD_LETTER_SAMPLES per project and location), newest first. */
  samples: DeadLetterSample[];
}

export interface DeadLetterPolicyCount {
  /** The firewall policy id the subject named. */
  policy: string;
  total: number;
  /** The most frequent reason first. */
  byReason: DeadLetterReasonCount[];
  /**
   * When the last one was recorded (RFC 3339).
   * @format date-time
   */
  lastTime: string;
}

export interface DeadLetterReasonCount {
  /** The dead-letter reason: unknown_policy, bad_address, invalid_event, bad_json, contract_mismatch, foreign_message_id, unevaluable. */
  reason: string;
  count: number;
}

export interface DeadLetterSample {
  /**
   * When it was recorded (RFC 3339).
   * @format date-time
   */
  time: string;
  policy: string;
  reason: string;
  /** The reason in words, as the dead-letter message's `Dead-Letter-Reason` header says it. */
  detail: string;
}

/** Recent samples kept per project and location. */
export const DEAD_LETTER_SAMPLES = 20;
