import { READ_ONLY_SUBJECTS, StatusError, ASSERTION_IDS_KV } from '@rollout/contracts';
import { NatsNamespace, kvSubject } from '@rollout/platform/nats';
import { JetStreamClient, NatsError, headers } from 'nats';

const EXPECT_NOTHING_HEADER = 'Nats-Expected-Last-Subject-Sequence';

const SERVICE_INFO = /^system\.v1\.[^.]+\.info$/;

export function isStateChanging(subject: string, namespace: NatsNamespace): boolean {
  const prefix = namespace.prefix ? `${namespace.prefix}.` : '';
  if (!subject.startsWith(prefix)) return true;
  const bare = subject.slice(prefix.length);
  return !READ_ONLY_SUBJECTS.has(bare) && !SERVICE_INFO.test(bare);
}

export interface AssertionIds {
  firstUse(jti: string, acceptedUntil: number): boolean | Promise<boolean>;
}

export class ProcessAssertionIds implements AssertionIds {
  /** Arrival order; expiry grows with arrival, give or take the skew. */
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

/** JetStream's "wrong last sequence". */
const WRONG_LAST_SEQUENCE = 10071;
const EMPTY = new Uint8Array(0);

/**
 * Create-if-absent: needs only publish on `$KV.ASSERTION_IDS.>`, never a read, and a delete
 * marker still counts as a value, so no one can reopen an id before it ages out. When NATS
 * cannot say, the request is refused with UNAVAILABLE: it fails closed.
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
