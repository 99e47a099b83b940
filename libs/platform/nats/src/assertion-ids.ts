import {
  ENFORCEMENT_SUBJECTS,
  EXPERIMENT_SUBJECTS,
  INSPECTION_RULES_SUBJECTS,
  PREVIEW_SUBJECTS,
  StatusError,
} from '@rollout/contracts';
import { JetStreamClient, NatsError, headers } from 'nats';
import { ASSERTION_CLOCK_SKEW_MS, ASSERTION_MAX_TTL_MS } from './actor-assertion';
import type { KvDeclaration } from './jetstream-setup';
import { kvSubject } from './kv-subjects';
import { NatsNamespace } from './namespace';

/** The header block of the gate's create-if-absent write, the only thing an id's entry holds. */
const EXPECT_NOTHING_HEADER = 'Nats-Expected-Last-Subject-Sequence';
export const ASSERTION_ID_ENTRY_BYTES = `NATS/1.0\r\n${EXPECT_NOTHING_HEADER}: 0\r\n\r\n`.length;
/** Commands per second, across every service, the bucket is sized for (five times the 1,000/s we plan for). */
export const ASSERTION_IDS_DESIGN_RATE = 5_000;
/**
 * What one id takes in the store, at most: the stored record's 34 bytes of framing and hash
 * (measured), its subject (`$KV.<namespace>_ASSERTION_IDS.<uuid>`, at most 87 bytes) and the
 * header block.
 */
export const ASSERTION_ID_STORED_BYTES = 192;
const ASSERTION_IDS_MAX_AGE_MS = ASSERTION_MAX_TTL_MS + 2 * ASSERTION_CLOCK_SKEW_MS;
const ASSERTION_IDS_MAX_MSGS = (ASSERTION_IDS_DESIGN_RATE * ASSERTION_IDS_MAX_AGE_MS) / 1000;

/**
 * The ids of the actor assertions that state-changing requests used, one key each, shared by
 * every replica of every service that verifies assertions. A key lives as long as an assertion
 * can be accepted: from `iat - skew` to `exp + skew`, at most the longest lifetime plus twice
 * the skew (nats-server 2.9 has no per-message TTL, so the bucket's max age says it). Written
 * once: no rollup, delete or purge, no second entry on a key, an empty value only, and at most
 * the ids of `ASSERTION_IDS_DESIGN_RATE` commands a second over the max age (docs/bus-security.md).
 */
export const ASSERTION_IDS_KV: KvDeclaration = {
  bucket: 'ASSERTION_IDS',
  history: 1,
  ttlMs: ASSERTION_IDS_MAX_AGE_MS,
  writeOnce: {
    maxMsgSize: ASSERTION_ID_ENTRY_BYTES,
    maxMsgs: ASSERTION_IDS_MAX_MSGS,
    maxBytes: ASSERTION_IDS_MAX_MSGS * ASSERTION_ID_STORED_BYTES,
  },
};

/**
 * The requests that change nothing: a replay of one within its assertion's lifetime, on another
 * replica, answers the same question again, so they are remembered per process only and cost no
 * write. Every other subject is state-changing, a new one included until it is listed here.
 */
export const READ_ONLY_SUBJECTS: ReadonlySet<string> = new Set([
  EXPERIMENT_SUBJECTS.getPolicy,
  EXPERIMENT_SUBJECTS.listPolicies,
  EXPERIMENT_SUBJECTS.policyEvents,
  EXPERIMENT_SUBJECTS.getExperiment,
  EXPERIMENT_SUBJECTS.listExperiments,
  EXPERIMENT_SUBJECTS.experimentEvents,
  EXPERIMENT_SUBJECTS.getOperation,
  EXPERIMENT_SUBJECTS.experimentDiff,
  EXPERIMENT_SUBJECTS.policyDiff,
  EXPERIMENT_SUBJECTS.listRevisions,
  EXPERIMENT_SUBJECTS.getRevision,
  EXPERIMENT_SUBJECTS.listProjects,
  EXPERIMENT_SUBJECTS.getProjectSettings,
  EXPERIMENT_SUBJECTS.statePosition,
  PREVIEW_SUBJECTS.previewLogs,
  PREVIEW_SUBJECTS.previewReport,
  PREVIEW_SUBJECTS.previewFlows,
  PREVIEW_SUBJECTS.getOperation,
  PREVIEW_SUBJECTS.deadLetters,
  ENFORCEMENT_SUBJECTS.getLease,
  ENFORCEMENT_SUBJECTS.listLeases,
  ENFORCEMENT_SUBJECTS.listDecisions,
  INSPECTION_RULES_SUBJECTS.get,
  INSPECTION_RULES_SUBJECTS.list,
  INSPECTION_RULES_SUBJECTS.evaluate,
]);

const SERVICE_INFO = /^system\.v1\.[^.]+\.info$/;

/** Whether a request on `subject` (as sent, namespace included) may change state. */
export function isStateChanging(subject: string, namespace: NatsNamespace): boolean {
  const prefix = namespace.prefix ? `${namespace.prefix}.` : '';
  if (!subject.startsWith(prefix)) return true;
  const bare = subject.slice(prefix.length);
  return !READ_ONLY_SUBJECTS.has(bare) && !SERVICE_INFO.test(bare);
}

/** Remembers assertion ids; `firstUse` is false for an id it has seen before. */
export interface AssertionIds {
  firstUse(jti: string, acceptedUntil: number): boolean | Promise<boolean>;
}

/** One process's memory of the ids it has seen, each until its assertion expires. */
export class ProcessAssertionIds implements AssertionIds {
  /** jti → expiry, in arrival order; expiry grows with arrival, give or take the skew. */
  private readonly seen = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  firstUse(jti: string, acceptedUntil: number): boolean {
    const now = this.now();
    for (const [id, expiry] of this.seen) {
      if (expiry > now) break;
      this.seen.delete(id);
    }
    if (this.seen.has(jti)) return false;
    this.seen.set(jti, acceptedUntil);
    return true;
  }
}

/** JetStream's "wrong last sequence": the key already has a value. */
const WRONG_LAST_SEQUENCE = 10071;
const EMPTY = new Uint8Array(0);

/**
 * The ids in the `ASSERTION_IDS` bucket, written create-if-absent: a publish on the key that
 * expects the key to hold nothing (`Nats-Expected-Last-Subject-Sequence: 0`). It needs only
 * publish on `$KV.ASSERTION_IDS.>`, never a read; a delete marker written on a key still counts
 * as something, so no one can reopen an id before it ages out. When NATS cannot say (no bucket,
 * no responders, timeout, disconnected), the request is refused with UNAVAILABLE: it fails closed.
 */
export class SharedAssertionIds implements AssertionIds {
  private readonly prefix: string;

  constructor(
    private readonly js: JetStreamClient,
    namespace: NatsNamespace,
    private readonly timeoutMs = 2_000,
  ) {
    this.prefix = kvSubject(namespace.bucket(ASSERTION_IDS_KV.bucket), '');
  }

  async firstUse(jti: string): Promise<boolean> {
    const expectNothing = headers();
    expectNothing.set(EXPECT_NOTHING_HEADER, '0');
    try {
      await this.js.publish(this.prefix + jti, EMPTY, {
        headers: expectNothing,
        timeout: this.timeoutMs,
      });
      return true;
    } catch (error) {
      if (error instanceof NatsError && error.api_error?.err_code === WRONG_LAST_SEQUENCE)
        return false;
      const why = error instanceof Error ? error.message : String(error);
      throw StatusError.withReason(
        'UNAVAILABLE',
        `The request was not run: its replay check could not be made (${ASSERTION_IDS_KV.bucket}: ${why}). Retry later.`,
        'REPLAY_CHECK_UNAVAILABLE',
      );
    }
  }
}
